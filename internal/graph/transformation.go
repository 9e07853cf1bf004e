package graph

import (
	"fmt"
	"strings"
	"time"
)

// Kind says what a Transformation stands for.
type Kind int

const (
	// KindSource is a source operator; it has no inputs.
	KindSource Kind = iota
	// KindOperator is an operator with inputs (sinks included).
	KindOperator
	// KindPartition is virtual: it sets the partitioner of its input edge.
	KindPartition
	// KindUnion is virtual: its inputs all feed the consumer's input.
	KindUnion
	// KindSideOutput is virtual: it selects a side output of its input.
	KindSideOutput
)

// Chaining says how an operator may be chained.
type Chaining int

const (
	// ChainAlways allows chaining to the predecessor and to successors.
	ChainAlways Chaining = iota
	// ChainHead starts a new chain: never chained to its predecessor.
	ChainHead
	// ChainNever is chained neither to predecessor nor to successors.
	ChainNever
)

// Type is the element type flowing out of a transformation. The runtime's
// typed glue implements it; this package only names it.
type Type interface {
	String() string
}

// Factory creates one operator instance for one subtask. out is the typed
// output (op.Output[T] of the node's OutType); it returns an op.Operator (an
// op.Source for sources) that implements op.Input for its input type.
type Factory func(out any) (any, error)

// Transformation is what one API call records. The public API builds them;
// Translate turns them into a StreamGraph.
type Transformation struct {
	ID     int
	Kind   Kind
	Name   string
	UID    string
	Inputs []*Transformation
	// Parallelism and MaxParallelism: 0 takes the job's default.
	Parallelism    int
	MaxParallelism int
	// MaxAllowedParallelism is set for operators that cannot run in
	// parallel (a source reading one iterator): 1. 0 means no limit.
	MaxAllowedParallelism int
	// Bounded marks a source whose input ends; batch mode needs every
	// source of an execution to be bounded.
	Bounded bool
	// OutType is the element type emitted (for virtual transformations:
	// the type of their input or, for side outputs, of the tag).
	OutType Type
	Factory Factory
	// BatchFactory, when set, replaces Factory in batch mode (Config.Batch):
	// a keyed operator that sorts its input and keeps one key at a time.
	BatchFactory Factory
	// Enumerator, for a source with dynamic split assignment, creates its
	// split enumerator (an op.EnumeratorFactory, opaque here).
	Enumerator any
	// Alignment, for a source whose watermark strategy has an alignment
	// group, says how it aligns its watermark with the group's.
	Alignment *Alignment
	Chaining  Chaining
	// Keyed marks operators whose input is partitioned by key group.
	Keyed bool
	// TwoInput marks an operator with two logical inputs: Inputs[0] feeds
	// its input 0 and Inputs[1] its input 1 (each may be a union).
	TwoInput bool
	// Partitioner is the edge partitioner set by a KindPartition.
	Partitioner Partitioner
	// SideTag is the side-output tag id selected by a KindSideOutput.
	SideTag string
}

func (t *Transformation) String() string {
	if t.Name != "" {
		return fmt.Sprintf("%s (#%d)", t.Name, t.ID)
	}
	return fmt.Sprintf("#%d", t.ID)
}

// Alignment is a source's watermark alignment (FLIP-182): its group and
// the drift it may run ahead of the group's least watermark.
type Alignment struct {
	Group    string
	MaxDrift time.Duration
}

// PartitionKind names how records are distributed over the channels of an
// edge.
type PartitionKind int

const (
	// Default picks Forward when both ends have the same parallelism and
	// Rebalance otherwise, as Flink does.
	Default PartitionKind = iota
	// Forward sends subtask i's records to subtask i (chainable).
	Forward
	// Rebalance distributes round-robin over all consumers.
	Rebalance
	// Rescale distributes round-robin over a local subset (POINTWISE).
	Rescale
	// Broadcast sends every record to every consumer.
	Broadcast
	// Hash sends a record to the subtask owning its key group.
	Hash
	// Global sends everything to subtask 0.
	Global
)

var partitionNames = [...]string{"DEFAULT", "FORWARD", "REBALANCE", "RESCALE", "BROADCAST", "HASH", "GLOBAL"}

func (k PartitionKind) String() string {
	if int(k) < len(partitionNames) {
		return partitionNames[k]
	}
	return fmt.Sprintf("PartitionKind(%d)", int(k))
}

// Partitioner is an edge's distribution. KeyHash is set for Hash: a
// func(T) uint32 over the edge's element type, opaque here.
type Partitioner struct {
	Kind    PartitionKind
	KeyHash any
}

// Pattern is how the subtasks of two job vertices connect.
type Pattern int

const (
	// Pointwise connects each consumer to one or a few producers.
	Pointwise Pattern = iota
	// AllToAll connects every producer with every consumer.
	AllToAll
)

func (p Pattern) String() string {
	if p == Pointwise {
		return "POINTWISE"
	}
	return "ALL_TO_ALL"
}

// Pattern returns the connection pattern the partitioner needs.
func (k PartitionKind) Pattern() Pattern {
	switch k {
	case Forward, Rescale:
		return Pointwise
	default:
		return AllToAll
	}
}

func joinNames(names []string) string { return strings.Join(names, " -> ") }
