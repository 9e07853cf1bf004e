package checkpoint

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
)

// benchTopology builds a job of n vertices of parallelism p: chains of
// pointwise edges, broken every third vertex by an all-to-all shuffle, and
// every tenth vertex a new source joined into the main line by an
// all-to-all edge, so both edge kinds and fan-ins occur.
func benchTopology(n, p int) *Topology {
	top := &Topology{}
	for i := 0; i < n; i++ {
		v := Vertex{ID: i, Parallelism: p}
		switch {
		case i == 0 || i%10 == 0:
			v.IsSource = true
		case i%10 == 1 && i > 1:
			v.Inputs = []Edge{{i - 1, AllToAll}, {i - 2, AllToAll}}
		case i%3 == 0:
			v.Inputs = []Edge{{i - 1, AllToAll}}
		default:
			v.Inputs = []Edge{{i - 1, Pointwise}}
		}
		top.Vertices = append(top.Vertices, v)
	}
	return top
}

// firstHalf names the benchmarks' case in which about the first half of
// the vertices finished and the rest runs, as when sources end: every task
// of the first running vertex reads a finished vertex through an ALL_TO_ALL
// edge, so a loop must check all of its producers (the quadratic case).
const firstHalf = "first-half"

// benchFinished returns whether each task of benchTopology(n, p) finished:
// share is a percentage of tasks drawn at random, or firstHalf (the
// vertices before the first one at or past the middle with an ALL_TO_ALL
// input).
func benchFinished(n, p int, share string) func(graph.SubtaskID) bool {
	fin := make([]bool, n*p)
	if share == firstHalf {
		top := benchTopology(n, p)
		k := n / 2
		for k < n && !slices.ContainsFunc(top.Vertices[k].Inputs, func(e Edge) bool { return e.Pattern == AllToAll }) {
			k++
		}
		for i := range fin {
			fin[i] = i/p < k
		}
	} else {
		var pct int
		if _, err := fmt.Sscanf(share, "%d%%", &pct); err != nil {
			panic(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range fin {
			fin[i] = rng.IntN(100) < pct
		}
	}
	return func(t graph.SubtaskID) bool { return fin[t.Vertex*p+t.Subtask] }
}

// BenchmarkCalculatePlan shows that the plan is linear in the number of
// tasks: ns/task stays flat from 10k to 100k tasks, whether the tasks sit
// in few wide vertices or many narrow ones, and whatever share finished
// (finished tasks are drawn at random, the worst case for the per-subtask
// pointwise checks).
func BenchmarkCalculatePlan(b *testing.B) {
	for _, size := range []struct{ vertices, parallelism int }{{10, 1000}, {100, 100}, {100, 1000}} {
		for _, share := range []string{"0%", "50%", "99%", firstHalf} {
			name := fmt.Sprintf("%dx%d/finished=%s", size.vertices, size.parallelism, share)
			b.Run(name, func(b *testing.B) {
				top := benchTopology(size.vertices, size.parallelism)
				total := size.vertices * size.parallelism
				finished := benchFinished(size.vertices, size.parallelism, share)
				runs := 0
				var roots int
				for b.Loop() {
					p := CalculatePlan(top, finished)
					roots = len(p.TasksToTrigger)
					runs++
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(runs*total), "ns/task")
				b.ReportMetric(float64(roots), "roots")
			})
		}
	}
}

// BenchmarkNaivePlan is the fair hand-written baseline (loopPlan, which
// stops at the first running producer and allocates nothing per task) on
// the two 10k-task shapes, for contrast: when most producers finished, its
// cost per task grows with the parallelism of ALL_TO_ALL edges (quadratic),
// where CalculatePlan's does not. Each run's plan is checked equal to
// CalculatePlan's, so both compute the same thing.
func BenchmarkNaivePlan(b *testing.B) {
	for _, size := range []struct{ vertices, parallelism int }{{10, 1000}, {100, 100}} {
		for _, share := range []string{"50%", "99%", firstHalf} {
			b.Run(fmt.Sprintf("%dx%d/finished=%s", size.vertices, size.parallelism, share), func(b *testing.B) {
				top := benchTopology(size.vertices, size.parallelism)
				total := size.vertices * size.parallelism
				finished := benchFinished(size.vertices, size.parallelism, share)
				want := CalculatePlan(top, finished)
				runs := 0
				var got Plan
				for b.Loop() {
					got = loopPlan(top, finished)
					runs++
				}
				if !plansEqual(got, want) {
					b.Fatal("loopPlan's plan differs from CalculatePlan's")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(runs*total), "ns/task")
			})
		}
	}
}

// loopPlan is the plan as a plain nested loop would compute it: for each
// running task, scan the producers it reads and stop at the first running
// one. It is O(n^2) on ALL_TO_ALL edges only when most producers finished.
func loopPlan(top *Topology, finished func(graph.SubtaskID) bool) Plan {
	var p Plan
	par := make(map[int]int, len(top.Vertices))
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
			if loopIsRoot(v, s, par, finished) {
				p.TasksToTrigger = append(p.TasksToTrigger, task)
			}
		}
		if all {
			p.FullyFinishedVertices = append(p.FullyFinishedVertices, v.ID)
		}
	}
	return p
}

// loopIsRoot reports whether every producer subtask s of v reads finished.
func loopIsRoot(v Vertex, s int, par map[int]int, finished func(graph.SubtaskID) bool) bool {
	for _, e := range v.Inputs {
		lo, hi := producerRange(e.Pattern, par[e.Source], v.Parallelism, s)
		for j := lo; j < hi; j++ {
			if !finished(graph.SubtaskID{Vertex: e.Source, Subtask: j}) {
				return false
			}
		}
	}
	return true
}
