package task

import (
	"slices"

	"github.com/weir-engine/weir/internal/graph"
)

// The channel layout of a consumer's gate: the channels of its input edges
// in the order of v.Inputs, and within an edge in the order of
// graph.ProducersOf. Producers and consumers compute it independently and
// must agree, so it lives in one place.

// inputChannel describes one channel of a gate.
type inputChannel struct {
	edge     *graph.JobEdge
	producer int
}

// gateLayout lists the channels of subtask's gate.
func gateLayout(v *graph.JobVertex, subtask int) []inputChannel {
	var chans []inputChannel
	for _, e := range v.Inputs {
		for _, p := range graph.ProducersOf(e.Pattern, e.Source.Parallelism, v.Parallelism, subtask) {
			chans = append(chans, inputChannel{edge: e, producer: p})
		}
	}
	return chans
}

// channelIndex is the index, in consumer's gate, of the channel that
// producer feeds over edge e.
func channelIndex(e *graph.JobEdge, producer, consumer int) int {
	off := 0
	for _, in := range e.Target.Inputs {
		ps := graph.ProducersOf(in.Pattern, in.Source.Parallelism, e.Target.Parallelism, consumer)
		if in == e {
			return off + slices.Index(ps, producer)
		}
		off += len(ps)
	}
	return -1
}
