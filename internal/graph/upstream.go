package graph

import "slices"

// Upstream returns the transformations that sinks need: the sinks and
// every transformation reachable from them through Inputs (sources, virtual
// transformations and both inputs of two-input operators included), each
// once, ordered by ID.
//
// It is how an execution picks what to run, as Flink's
// StreamExecutionEnvironment does: an Env passes the sinks added since its
// last execution, and transformations that lead to none of them are left
// out. The ID order is the order in which the program created them, which
// is the order Translate was given before executions were scoped to their
// sinks; so a program whose transformations all lead to its sinks
// translates to the same graph, operator uids and fingerprint as before,
// and a builder that adds the same program gets the same graph every time.
//
// Nil inputs are skipped here; Translate reports them.
func Upstream(sinks []*Transformation) []*Transformation {
	seen := make(map[*Transformation]bool)
	var out []*Transformation
	stack := slices.Clone(sinks)
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if t == nil || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
		stack = append(stack, t.Inputs...)
	}
	slices.SortFunc(out, func(a, b *Transformation) int { return a.ID - b.ID })
	return out
}
