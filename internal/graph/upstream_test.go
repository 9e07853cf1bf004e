package graph_test

import (
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"pgregory.net/rapid"
)

func names(ts []*graph.Transformation) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// Upstream keeps exactly what the sinks need, through every kind of input,
// in the order the transformations were created, whatever the order of the
// sinks.
func TestUpstream(t *testing.T) {
	tests := []struct {
		name string
		// build returns the sinks of the execution.
		build func(b *builder) []*graph.Transformation
		want  []string
	}{
		{"no sinks", func(b *builder) []*graph.Transformation {
			b.add(graph.KindSource, "src", 0)
			return nil
		}, nil},
		{"a branch without a sink is left out", func(b *builder) []*graph.Transformation {
			s := b.add(graph.KindSource, "src", 0)
			m := b.add(graph.KindOperator, "map", 0, s)
			b.add(graph.KindOperator, "dangling", 0, m)
			b.add(graph.KindSource, "unused-src", 0)
			return []*graph.Transformation{b.add(graph.KindOperator, "sink", 0, m)}
		}, []string{"src", "map", "sink"}},
		{"a sink of another execution is left out", func(b *builder) []*graph.Transformation {
			s := b.add(graph.KindSource, "src", 0)
			b.add(graph.KindOperator, "earlier-sink", 0, s)
			return []*graph.Transformation{b.add(graph.KindOperator, "sink", 0, s)}
		}, []string{"src", "sink"}},
		{"side output and union", func(b *builder) []*graph.Transformation {
			s := b.add(graph.KindSource, "src", 0)
			p := b.add(graph.KindOperator, "process", 0, s)
			side := b.add(graph.KindSideOutput, "side", 0, p)
			other := b.add(graph.KindSource, "other", 0)
			u := b.add(graph.KindUnion, "union", 0, side, other)
			return []*graph.Transformation{b.add(graph.KindOperator, "sink", 0, u)}
		}, []string{"src", "process", "side", "other", "union", "sink"}},
		{"both inputs of a two-input operator, sinks in reverse order", func(b *builder) []*graph.Transformation {
			a := b.add(graph.KindSource, "a", 0)
			c := b.add(graph.KindSource, "b", 0)
			j := b.add(graph.KindOperator, "join", 0, b.keyBy(a), b.keyBy(c))
			j.TwoInput = true
			first := b.add(graph.KindOperator, "sink1", 0, a)
			second := b.add(graph.KindOperator, "sink2", 0, j)
			return []*graph.Transformation{second, first, second}
		}, []string{"a", "b", "keyBy", "keyBy", "join", "sink1", "sink2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &builder{}
			sinks := tt.build(b)
			if got := names(graph.Upstream(sinks)); !slices.Equal(got, tt.want) {
				t.Fatalf("Upstream = %q, want %q", got, tt.want)
			}
		})
	}
}

// A program whose transformations all lead to a sink translates to the
// same job graph from its sinks, given in any order, as from all its
// transformations: the same operators, uids and fingerprint.
func TestUpstreamOfAllSinksKeepsTheGraph(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := &builder{}
		consumed := map[*graph.Transformation]bool{}
		pick := func(label string) *graph.Transformation {
			in := rapid.SampledFrom(b.ts).Draw(t, label)
			consumed[in] = true
			return in
		}
		b.add(graph.KindSource, "src", rapid.IntRange(0, 3).Draw(t, "source parallelism"))
		for range rapid.IntRange(0, 12).Draw(t, "transformations") {
			switch rapid.IntRange(0, 4).Draw(t, "kind") {
			case 0:
				b.add(graph.KindSource, "src", rapid.IntRange(0, 3).Draw(t, "source parallelism"))
			case 1:
				b.add(graph.KindOperator, "map", rapid.IntRange(0, 3).Draw(t, "parallelism"), b.rebalance(pick("input")))
			case 2:
				b.add(graph.KindUnion, "union", 0, pick("first"), pick("second"))
			case 3:
				b.add(graph.KindSideOutput, "side", 0, pick("input"))
			case 4:
				j := b.add(graph.KindOperator, "join", 0, b.keyBy(pick("left")), b.keyBy(pick("right")))
				j.TwoInput = true
			}
		}
		var sinks []*graph.Transformation
		for _, in := range slices.Clone(b.ts) {
			if !consumed[in] {
				sinks = append(sinks, b.add(graph.KindOperator, "sink", 0, b.rebalance(in)))
			}
		}
		all := fingerprint(t, b.ts)
		sinks = rapid.Permutation(sinks).Draw(t, "sink order")
		if got := fingerprint(t, graph.Upstream(sinks)); got != all {
			t.Fatalf("fingerprint from the sinks %s, from all transformations %s", got, all)
		}
	})
}

// rebalance records a rebalance of in, so that any parallelism fits.
func (b *builder) rebalance(in *graph.Transformation) *graph.Transformation {
	t := b.add(graph.KindPartition, "rebalance", 0, in)
	t.Partitioner.Kind = graph.Rebalance
	return t
}

func fingerprint(t *rapid.T, ts []*graph.Transformation) string {
	sg, err := graph.Translate(ts, graph.Config{Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	return graph.BuildJobGraph(sg).Fingerprint()
}
