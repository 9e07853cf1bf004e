package task

import (
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
)

// Every subpartition a producer writes is read by exactly one channel of
// the consumer it is for, and every channel reads a subpartition that
// exists, for every pattern and for a vertex with two inputs.
func TestSubpartitionsMatchLayout(t *testing.T) {
	for _, tt := range []struct {
		patterns [2]graph.Pattern
		p        [3]int // parallelism of the two inputs and of the consumer
	}{
		{[2]graph.Pattern{graph.AllToAll, graph.AllToAll}, [3]int{3, 5, 4}},
		{[2]graph.Pattern{graph.Pointwise, graph.AllToAll}, [3]int{6, 2, 3}},
		{[2]graph.Pattern{graph.AllToAll, graph.Pointwise}, [3]int{2, 2, 7}},
		{[2]graph.Pattern{graph.Pointwise, graph.Pointwise}, [3]int{4, 7, 4}},
	} {
		t.Run(fmt.Sprint(tt), func(t *testing.T) {
			v := &graph.JobVertex{ID: 2, Parallelism: tt.p[2]}
			for i := range 2 {
				src := &graph.JobVertex{ID: i, Parallelism: tt.p[i]}
				e := &graph.JobEdge{ID: i, Source: src, Target: v, Pattern: tt.patterns[i]}
				// An unrelated output first, so the output index matters.
				src.Outputs = append(src.Outputs, &graph.JobEdge{ID: 10 + i}, e)
				v.Inputs = append(v.Inputs, e)
			}
			type key struct{ edge, producer, sub int }
			read := make(map[key]int) // which consumer reads each subpartition
			for c := range v.Parallelism {
				for _, ch := range gateLayout(v, c) {
					if ch.output != 1 {
						t.Fatalf("consumer %d reads output %d of producer %d, want 1", c, ch.output, ch.producer)
					}
					k := key{ch.edge.ID, ch.producer, ch.subpartition}
					if prev, dup := read[k]; dup {
						t.Fatalf("consumers %d and %d both read %+v", prev, c, k)
					}
					read[k] = c
				}
			}
			for _, e := range v.Inputs {
				for p := range e.Source.Parallelism {
					for sub, c := range graph.ConsumersOf(e.Pattern, e.Source.Parallelism, v.Parallelism, p) {
						if got, ok := read[key{e.ID, p, sub}]; !ok || got != c {
							t.Fatalf("subpartition %d of producer %d on edge %d is for consumer %d, read by %d (%v)", sub, p, e.ID, c, got, ok)
						}
						delete(read, key{e.ID, p, sub})
					}
				}
			}
			if len(read) > 0 {
				t.Fatalf("channels read subpartitions no producer writes: %v", read)
			}
		})
	}
}
