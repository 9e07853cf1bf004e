package network

import (
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/memsize"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// Sizing is how many buffers every channel of a job has: Credit buffers
// on the receiving side (the receiver's credit), Backlog buffers the
// sender may queue beyond it, and the one buffer the sender fills.
type Sizing struct {
	Credit, Backlog int
}

// DefaultSizing is the sizing a job gets when its TaskManagers have the
// memory for it.
var DefaultSizing = Sizing{Credit: DefaultCredit, Backlog: DefaultBacklog}

// MinSizing is the least a channel can work with: one buffer the sender
// fills and one credit, so that the sender fills a buffer while the
// receiver reads the other. (InsufficientError's message says "one buffer
// for each channel end": keep them in step.)
var MinSizing = Sizing{Credit: 1, Backlog: 0}

// PerChannel is the buffers of one channel, both sides together.
func (s Sizing) PerChannel() int { return s.Credit + s.Backlog + 1 }

// normalize raises a sizing below the minimum to it.
func (s Sizing) normalize() Sizing {
	return Sizing{Credit: max(s.Credit, MinSizing.Credit), Backlog: max(s.Backlog, MinSizing.Backlog)}
}

// Usage counts the channel ends of some subtasks: the input channels of
// their gates and the subpartitions (output channels) they write.
type Usage struct {
	InputChannels, Subpartitions int
}

// Buffers is what the channel ends need under s: the credit of every input
// channel, and the buffer being filled plus the backlog of every
// subpartition.
func (u Usage) Buffers(s Sizing) int {
	return u.InputChannels*s.Credit + u.Subpartitions*(1+s.Backlog)
}

func (u Usage) add(o Usage) Usage {
	return Usage{u.InputChannels + o.InputChannels, u.Subpartitions + o.Subpartitions}
}

// SubtaskUsage counts the channel ends of subtask of v: one input channel
// per producer subtask of every input edge (all of the producers for
// ALL_TO_ALL), one subpartition per consumer subtask of every output edge.
func SubtaskUsage(v *graph.JobVertex, subtask int) Usage {
	var u Usage
	for _, e := range v.Inputs {
		u.InputChannels += graph.NumProducers(e.Pattern, e.Source.Parallelism, v.Parallelism, subtask)
	}
	for _, e := range v.Outputs {
		u.Subpartitions += graph.NumConsumers(e.Pattern, v.Parallelism, e.Target.Parallelism, subtask)
	}
	return u
}

// Demand is the usage of a job on each TaskManager of its slot plan.
func Demand(jg *graph.JobGraph, plan slots.Plan) map[string]Usage {
	d := make(map[string]Usage)
	for _, a := range plan.Assignments {
		tm := a.Slot.TaskManager
		d[tm] = d[tm].add(SubtaskUsage(jg.Vertices[a.Vertex], a.Subtask))
	}
	return d
}

// Size picks the sizing of a job's channels: the largest up to want under
// which every TaskManager's demand fits its capacity. It gives up backlog
// buffers first, then credit, down to MinSizing; when even that does not
// fit, it returns an *InsufficientError for the TaskManager short by the
// most buffers. Pure: the caller deploys with the sizing it returns.
func Size(demand map[string]Usage, capacity map[string]Capacity, want Sizing) (Sizing, error) {
	want = want.normalize()
	tms := make([]string, 0, len(demand))
	for tm := range demand {
		tms = append(tms, tm)
	}
	slices.Sort(tms)
	fits := func(s Sizing) bool {
		for _, tm := range tms {
			if demand[tm].Buffers(s) > capacity[tm].Buffers {
				return false
			}
		}
		return true
	}
	for s := want; ; {
		if fits(s) {
			return s, nil
		}
		switch {
		case s.Backlog > MinSizing.Backlog:
			s.Backlog--
		case s.Credit > MinSizing.Credit:
			s.Credit--
		default:
			return Sizing{}, shortest(demand, capacity, tms)
		}
	}
}

// shortest is the error of the TaskManager furthest from fitting MinSizing.
func shortest(demand map[string]Usage, capacity map[string]Capacity, tms []string) error {
	var worst *InsufficientError
	for _, tm := range tms {
		e := &InsufficientError{TaskManager: tm, Usage: demand[tm], Need: demand[tm].Buffers(MinSizing), Capacity: capacity[tm]}
		if short := e.Need - e.Capacity.Buffers; short > 0 && (worst == nil || short > worst.Need-worst.Capacity.Buffers) {
			worst = e
		}
	}
	return worst
}

// InsufficientError says a job cannot run: even at MinSizing its channels
// on TaskManager need more buffers than its network memory holds.
type InsufficientError struct {
	TaskManager string
	Usage       Usage
	// Need is the buffers the job needs there at least.
	Need     int
	Capacity Capacity
}

func (e *InsufficientError) Error() string {
	need := int64(e.Need) * int64(e.Capacity.BufferMemory)
	// At MinSizing every channel end takes one buffer.
	return fmt.Sprintf("%v: the job needs %s network buffers (%s each, %s) on TaskManager %s, "+
		"one for each of its %s input channels and %s output subpartitions, "+
		"and %s has %v: lower --parallelism or raise --network-memory (weir.WithNetworkMemory)",
		ErrInsufficientBuffers, group(int64(e.Need)), memsize.Format(int64(e.Capacity.BufferMemory)), memsize.Format(need),
		e.TaskManager, group(int64(e.Usage.InputChannels)), group(int64(e.Usage.Subpartitions)),
		e.TaskManager, e.Capacity)
}

// Unwrap makes errors.Is(err, ErrInsufficientBuffers) hold.
func (e *InsufficientError) Unwrap() error { return ErrInsufficientBuffers }
