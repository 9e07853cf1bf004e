package checkpoint

import (
	"fmt"
	"math/rand/v2"
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

// BenchmarkCalculatePlan shows that the plan is linear in the number of
// tasks: ns/task stays flat from 10k to 100k tasks, whether the tasks sit
// in few wide vertices or many narrow ones, and whatever share finished
// (finished tasks are drawn at random, the worst case for the per-subtask
// pointwise checks).
func BenchmarkCalculatePlan(b *testing.B) {
	for _, size := range []struct{ vertices, parallelism int }{{10, 1000}, {100, 100}, {100, 1000}} {
		for _, pct := range []int{0, 50, 99} {
			name := fmt.Sprintf("%dx%d/finished=%d%%", size.vertices, size.parallelism, pct)
			b.Run(name, func(b *testing.B) {
				top := benchTopology(size.vertices, size.parallelism)
				total := size.vertices * size.parallelism
				rng := rand.New(rand.NewPCG(1, 2))
				fin := make([]bool, total)
				for i := range fin {
					fin[i] = rng.IntN(100) < pct
				}
				finished := func(t graph.SubtaskID) bool { return fin[t.Vertex*size.parallelism+t.Subtask] }
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

// BenchmarkNaivePlan is the definition (naivePlan) on the two 10k-task
// shapes, for contrast: its cost per task grows with the parallelism of
// ALL_TO_ALL edges (quadratic), where CalculatePlan's does not.
func BenchmarkNaivePlan(b *testing.B) {
	for _, size := range []struct{ vertices, parallelism int }{{10, 1000}, {100, 100}} {
		b.Run(fmt.Sprintf("%dx%d/finished=50%%", size.vertices, size.parallelism), func(b *testing.B) {
			top := benchTopology(size.vertices, size.parallelism)
			total := size.vertices * size.parallelism
			rng := rand.New(rand.NewPCG(1, 2))
			fin := make([]bool, total)
			for i := range fin {
				fin[i] = rng.IntN(100) < 50
			}
			finished := func(t graph.SubtaskID) bool { return fin[t.Vertex*size.parallelism+t.Subtask] }
			runs := 0
			for b.Loop() {
				naivePlan(top, finished)
				runs++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(runs*total), "ns/task")
		})
	}
}
