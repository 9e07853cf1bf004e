package task

import (
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
)

// numChannels and channelIndex, which producers use without listing the
// gate, agree with the gate's layout, for every pattern and for a vertex
// with two inputs.
func TestChannelIndexMatchesLayout(t *testing.T) {
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
				v.Inputs = append(v.Inputs, &graph.JobEdge{ID: i, Source: src, Target: v, Pattern: tt.patterns[i]})
			}
			for c := range v.Parallelism {
				layout := gateLayout(v, c)
				if n := numChannels(v, c); n != len(layout) {
					t.Fatalf("consumer %d: numChannels %d, layout has %d", c, n, len(layout))
				}
				for i, ch := range layout {
					if got := channelIndex(ch.edge, ch.producer, c); got != i {
						t.Fatalf("consumer %d: producer %d of edge %d at index %d, channelIndex says %d", c, ch.producer, ch.edge.ID, i, got)
					}
				}
			}
		})
	}
}
