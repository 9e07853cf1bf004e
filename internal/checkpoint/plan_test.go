package checkpoint

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/weir-engine/weir/internal/graph"
)

// genTopology draws a small random DAG: chains, fan-ins, several sources,
// both patterns, parallelism that divides or not.
func genTopology(t *rapid.T) *Topology {
	n := rapid.IntRange(1, 7).Draw(t, "vertices")
	top := &Topology{}
	for i := 0; i < n; i++ {
		v := Vertex{ID: 10 + i*3, Parallelism: rapid.IntRange(1, 7).Draw(t, fmt.Sprintf("par%d", i))}
		if i > 0 {
			k := rapid.IntRange(0, min(i, 3)).Draw(t, fmt.Sprintf("inputs%d", i))
			srcs := rapid.Permutation(seqInts(i)).Draw(t, fmt.Sprintf("srcs%d", i))[:k]
			for j, s := range srcs {
				pat := Pattern(rapid.IntRange(0, 1).Draw(t, fmt.Sprintf("pat%d.%d", i, j)))
				v.Inputs = append(v.Inputs, Edge{Source: top.Vertices[s].ID, Pattern: pat})
			}
		}
		v.IsSource = len(v.Inputs) == 0
		top.Vertices = append(top.Vertices, v)
	}
	return top
}

func seqInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// naivePlan is the definition, O(n^2) on ALL_TO_ALL edges: a running task
// is a root when none of the subtasks it reads runs.
func naivePlan(top *Topology, finished func(graph.SubtaskID) bool) Plan {
	var p Plan
	par := map[int]int{}
	for _, v := range top.Vertices {
		par[v.ID] = v.Parallelism
	}
	for _, v := range top.Vertices {
		all := true
		for s := 0; s < v.Parallelism; s++ {
			task := graph.SubtaskID{Vertex: v.ID, Subtask: s}
			if finished(task) {
				p.FinishedTasks = append(p.FinishedTasks, task)
				continue
			}
			all = false
			p.TasksToWaitFor = append(p.TasksToWaitFor, task)
			root := true
			for _, e := range v.Inputs {
				for _, j := range ProducersOf(e.Pattern, par[e.Source], v.Parallelism, s) {
					if !finished(graph.SubtaskID{Vertex: e.Source, Subtask: j}) {
						root = false
					}
				}
			}
			if root {
				p.TasksToTrigger = append(p.TasksToTrigger, task)
			}
		}
		if all {
			p.FullyFinishedVertices = append(p.FullyFinishedVertices, v.ID)
		}
	}
	return p
}

func plansEqual(a, b Plan) bool {
	return slices.Equal(a.TasksToTrigger, b.TasksToTrigger) &&
		slices.Equal(a.TasksToWaitFor, b.TasksToWaitFor) &&
		slices.Equal(a.FinishedTasks, b.FinishedTasks) &&
		slices.Equal(a.FullyFinishedVertices, b.FullyFinishedVertices)
}

func TestPlanMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		top := genTopology(t)
		if err := top.Validate(); err != nil {
			t.Fatal(err)
		}
		fin := map[graph.SubtaskID]bool{}
		bias := rapid.IntRange(0, 4).Draw(t, "bias") // 0: none finished ... 4: most
		for _, v := range top.Vertices {
			for s := 0; s < v.Parallelism; s++ {
				fin[graph.SubtaskID{Vertex: v.ID, Subtask: s}] = rapid.IntRange(0, 3).Draw(t, "f") < bias
			}
		}
		calls := 0
		got := CalculatePlan(top, func(id graph.SubtaskID) bool { calls++; return fin[id] })
		want := naivePlan(top, func(id graph.SubtaskID) bool { return fin[id] })
		if !plansEqual(got, want) {
			t.Fatalf("plan differs\n got %+v\nwant %+v", got, want)
		}
		if loop := loopPlan(top, func(id graph.SubtaskID) bool { return fin[id] }); !plansEqual(loop, want) {
			t.Fatalf("loopPlan differs\n got %+v\nwant %+v", loop, want)
		}
		if calls != len(fin) {
			t.Fatalf("finished called %d times for %d tasks", calls, len(fin))
		}
	})
}

// TestPlanExamples pins the FLIP's Figure 2 and a few edge cases.
func TestPlanExamples(t *testing.T) {
	// A(2) -all-> B(2) -pointwise-> C(2), A finished: B's tasks are roots.
	top := &Topology{Vertices: []Vertex{
		{ID: 0, Parallelism: 2, IsSource: true},
		{ID: 1, Parallelism: 2, Inputs: []Edge{{0, AllToAll}}},
		{ID: 2, Parallelism: 2, Inputs: []Edge{{1, Pointwise}}},
	}}
	p := CalculatePlan(top, func(t graph.SubtaskID) bool { return t.Vertex == 0 || t == graph.SubtaskID{Vertex: 1, Subtask: 1} })
	want := Plan{
		TasksToTrigger:        []graph.SubtaskID{{Vertex: 1, Subtask: 0}, {Vertex: 2, Subtask: 1}},
		TasksToWaitFor:        []graph.SubtaskID{{Vertex: 1, Subtask: 0}, {Vertex: 2, Subtask: 0}, {Vertex: 2, Subtask: 1}},
		FinishedTasks:         []graph.SubtaskID{{Vertex: 0, Subtask: 0}, {Vertex: 0, Subtask: 1}, {Vertex: 1, Subtask: 1}},
		FullyFinishedVertices: []int{0},
	}
	if !plansEqual(p, want) {
		t.Fatalf("got %+v, want %+v", p, want)
	}
	// Only one of A's subtasks finished: nothing behind the ALL_TO_ALL edge
	// is a root.
	p = CalculatePlan(top, func(t graph.SubtaskID) bool { return t == graph.SubtaskID{Vertex: 0, Subtask: 0} })
	if !slices.Equal(p.TasksToTrigger, []graph.SubtaskID{{Vertex: 0, Subtask: 1}}) {
		t.Fatalf("got %v", p.TasksToTrigger)
	}
}

func TestProducersOf(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		P := rapid.IntRange(1, 40).Draw(t, "producers")
		C := rapid.IntRange(1, 40).Draw(t, "consumers")
		for c := 0; c < C; c++ {
			got := ProducersOf(Pointwise, P, C, c)
			// The definition from the producers' side.
			var want []int
			for j := 0; j < P; j++ {
				var lo, hi int
				if P >= C {
					lo, hi = -1, -1
					if j >= c*P/C && j < (c+1)*P/C {
						want = append(want, j)
					}
					continue
				}
				lo = (j*C + P - 1) / P
				hi = ((j+1)*C + P - 1) / P
				if c >= lo && c < hi {
					want = append(want, j)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("P=%d C=%d c=%d: got %v want %v", P, C, c, got, want)
			}
			if g := graph.ProducersOf(graph.Pointwise, P, C, c); !slices.Equal(got, g) {
				t.Fatalf("P=%d C=%d c=%d: got %v, internal/graph says %v", P, C, c, got, g)
			}
			if len(got) == 0 {
				t.Fatalf("consumer %d of %d has no producer (P=%d)", c, C, P)
			}
		}
		if got := ProducersOf(AllToAll, P, C, 0); len(got) != P {
			t.Fatalf("all-to-all: %v", got)
		}
	})
}

func TestRegionsMatchNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		top := genTopology(t)
		ix, err := compile(top)
		if err != nil {
			t.Fatal(err)
		}
		region, sizes := regionsOf(ix)
		// Naive: flood fill over explicit channels.
		adj := make([][]int, ix.total)
		for v, vx := range ix.vertices {
			for _, e := range ix.inputs[v] {
				prod := ix.vertices[e.Source].Parallelism
				for c := 0; c < vx.Parallelism; c++ {
					for _, j := range ProducersOf(e.Pattern, prod, vx.Parallelism, c) {
						a, b := ix.offset[e.Source]+j, ix.offset[v]+c
						adj[a] = append(adj[a], b)
						adj[b] = append(adj[b], a)
					}
				}
			}
		}
		comp := make([]int, ix.total)
		for i := range comp {
			comp[i] = -1
		}
		n := 0
		for i := range comp {
			if comp[i] >= 0 {
				continue
			}
			stack := []int{i}
			comp[i] = n
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, y := range adj[x] {
					if comp[y] < 0 {
						comp[y] = n
						stack = append(stack, y)
					}
				}
			}
			n++
		}
		if len(sizes) != n {
			t.Fatalf("%d regions, want %d", len(sizes), n)
		}
		for i := range comp {
			for j := range comp {
				if (comp[i] == comp[j]) != (region[i] == region[j]) {
					t.Fatalf("tasks %v and %v: same region %v, want %v", ix.taskOf(i), ix.taskOf(j), region[i] == region[j], comp[i] == comp[j])
				}
			}
		}
	})
}

func TestTopologyValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		top  Topology
	}{
		{"empty", Topology{}},
		{"duplicate", Topology{Vertices: []Vertex{{ID: 1, Parallelism: 1, IsSource: true}, {ID: 1, Parallelism: 1, IsSource: true}}}},
		{"parallelism", Topology{Vertices: []Vertex{{ID: 1, Parallelism: 0, IsSource: true}}}},
		{"order", Topology{Vertices: []Vertex{{ID: 1, Parallelism: 1, Inputs: []Edge{{2, AllToAll}}}, {ID: 2, Parallelism: 1, IsSource: true}}}},
		{"pattern", Topology{Vertices: []Vertex{{ID: 1, Parallelism: 1, IsSource: true}, {ID: 2, Parallelism: 1, Inputs: []Edge{{1, Pattern(7)}}}}}},
	} {
		if err := tc.top.Validate(); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestTaskOf(t *testing.T) {
	ix, _ := compile(&Topology{Vertices: []Vertex{
		{ID: 5, Parallelism: 3, IsSource: true},
		{ID: 7, Parallelism: 1, Inputs: []Edge{{5, AllToAll}}},
		{ID: 9, Parallelism: 2, Inputs: []Edge{{7, Pointwise}}},
	}})
	for f := 0; f < ix.total; f++ {
		g, ok := ix.flat(ix.taskOf(f))
		if !ok || g != f {
			t.Fatalf("flat(taskOf(%d)) = %d, %v", f, g, ok)
		}
	}
}
