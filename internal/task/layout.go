package task

import (
	"slices"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
)

// The channel layout of a consumer's gate: the channels of its input edges
// in the order of v.Inputs, and within an edge in the order of
// graph.ProducersOf. Each channel reads one subpartition of one producer's
// result partition: the partition of the edge's index among the producer
// vertex's outputs, the subpartition of the consumer's index among the
// producer's graph.ConsumersOf. Producers and consumers compute their sides
// independently and must agree, so both live in this file.

// inputChannel describes one channel of a gate.
type inputChannel struct {
	edge     *graph.JobEdge
	producer int
	// output is the index of edge in the producer vertex's outputs, and
	// subpartition the index of the channel in the producer's partition.
	output, subpartition int
}

// gateLayout lists the channels of subtask's gate.
func gateLayout(v *graph.JobVertex, subtask int) []inputChannel {
	var chans []inputChannel
	for _, e := range v.Inputs {
		out := slices.Index(e.Source.Outputs, e)
		for _, p := range graph.ProducersOf(e.Pattern, e.Source.Parallelism, v.Parallelism, subtask) {
			sub := slices.Index(graph.ConsumersOf(e.Pattern, e.Source.Parallelism, v.Parallelism, p), subtask)
			chans = append(chans, inputChannel{edge: e, producer: p, output: out, subpartition: sub})
		}
	}
	return chans
}

// partitionID names the result partition that producer subtask of
// e.Source writes for edge e, whose index in e.Source.Outputs is output.
func (t *Task) partitionID(e *graph.JobEdge, output, producer int) network.PartitionID {
	return network.PartitionID{Job: t.desc.JobID, Generation: t.desc.Generation, Vertex: e.Source.ID, Subtask: producer, Output: output}
}
