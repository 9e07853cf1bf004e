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

// numChannels is len(gateLayout(v, subtask)), without the layout: every
// producer asks it of each of its consumers.
func numChannels(v *graph.JobVertex, subtask int) int {
	n := 0
	for _, e := range v.Inputs {
		n += graph.NumProducers(e.Pattern, e.Source.Parallelism, v.Parallelism, subtask)
	}
	return n
}

// channelIndex is the index, in consumer's gate, of the channel that
// producer feeds over edge e.
func channelIndex(e *graph.JobEdge, producer, consumer int) int {
	off := 0
	for _, in := range e.Target.Inputs {
		if in == e {
			if in.Pattern == graph.AllToAll {
				return off + producer // ProducersOf lists them all, in order
			}
			return off + slices.Index(graph.ProducersOf(in.Pattern, in.Source.Parallelism, e.Target.Parallelism, consumer), producer)
		}
		off += graph.NumProducers(in.Pattern, in.Source.Parallelism, e.Target.Parallelism, consumer)
	}
	return -1
}
