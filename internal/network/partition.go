package network

import (
	"fmt"
	"sync/atomic"
)

// PartitionType says how a result partition hands its data to consumers
// (Flink's ResultPartitionType).
type PartitionType int

const (
	// Pipelined partitions stream: the consumer reads while the producer
	// writes, with credit-based back-pressure; the data is gone once
	// consumed.
	Pipelined PartitionType = iota
	// Blocking partitions are written completely to local disk before
	// they are consumed (batch exchanges; see blocking.go).
	Blocking
	// BlockingPersistent partitions are blocking partitions that outlive
	// the job (cached intermediate results, kept as cluster partitions):
	// see persistent.go. NewResultPartition does not make them.
	BlockingPersistent
)

func (t PartitionType) String() string {
	switch t {
	case Pipelined:
		return "PIPELINED"
	case Blocking:
		return "BLOCKING"
	case BlockingPersistent:
		return "BLOCKING_PERSISTENT"
	}
	return fmt.Sprintf("PartitionType(%d)", int(t))
}

// PartitionID names a result partition: what one producer subtask of one
// attempt of a job writes on one of its output edges.
type PartitionID struct {
	Job        string
	Generation int
	// Vertex and Subtask are the producer's; Output is the index of the
	// edge in the producer vertex's outputs.
	Vertex, Subtask, Output int
}

func (id PartitionID) String() string {
	return fmt.Sprintf("%s/%d/v%d-s%d-o%d", id.Job, id.Generation, id.Vertex, id.Subtask, id.Output)
}

// PartitionOptions configures a ResultPartition.
type PartitionOptions struct {
	Type PartitionType
	// Subpartitions is the number of consumer channels.
	Subpartitions int
	// Backlog is the number of buffers a subpartition may hold beyond the
	// credit of its consumer (Sizing.Backlog).
	Backlog int
	// Dir is where a Blocking partition writes its files (os.TempDir()
	// when empty); RegionBytes is the bytes it buffers before writing a
	// region (default 4 MiB).
	Dir         string
	RegionBytes int
	// Wake, when set, receives a token (without blocking) whenever the
	// partition becomes available again; a task shares one among its
	// partitions. Nil: the partition makes its own, see Wake.
	Wake chan struct{}
}

// ResultPartition is the output of one producer subtask on one edge (Flink's
// ResultPartition): one Subpartition per consumer channel. The producer's
// writer adds buffers and events to the subpartitions without ever
// waiting; a ConnectionManager moves them to the consumers' input channels
// as credit allows. The partition is available while every subpartition
// is writable: a producer that finds it unavailable stops processing input
// and waits for Wake (Flink's availability-based mailbox loop).
type ResultPartition struct {
	id   PartitionID
	typ  PartitionType
	subs []*Subpartition
	wake chan struct{}
	// unwritable counts subpartitions that are not writable.
	unwritable atomic.Int32
	// blocking is the file state of a Blocking partition, nil otherwise.
	blocking *blockingState
}

// NewResultPartition returns a partition of o.Subpartitions subpartitions.
// A Blocking partition creates its data file in o.Dir.
func NewResultPartition(id PartitionID, o PartitionOptions) (*ResultPartition, error) {
	if o.Type != Pipelined && o.Type != Blocking {
		return nil, fmt.Errorf("network: partition %v: type %v is not supported yet", id, o.Type)
	}
	if o.Subpartitions < 0 || o.Backlog < 0 {
		return nil, fmt.Errorf("network: partition %v: %d subpartitions, backlog %d", id, o.Subpartitions, o.Backlog)
	}
	p := &ResultPartition{id: id, typ: o.Type, wake: o.Wake}
	if p.wake == nil {
		p.wake = make(chan struct{}, 1)
	}
	if o.Type == Blocking {
		var err error
		if p.blocking, err = newBlockingState(id, o); err != nil {
			return nil, err
		}
	}
	for i := 0; i < o.Subpartitions; i++ {
		s := &Subpartition{parent: p, index: i}
		s.mu.out = *NewOutbox(o.Backlog)
		s.mu.writable = p.blocking != nil || s.mu.out.Writable()
		if !s.mu.writable {
			p.unwritable.Add(1)
		}
		p.subs = append(p.subs, s)
	}
	return p, nil
}

// ID names the partition.
func (p *ResultPartition) ID() PartitionID { return p.id }

// Type is the partition's type.
func (p *ResultPartition) Type() PartitionType { return p.typ }

// NumSubpartitions is the number of consumer channels.
func (p *ResultPartition) NumSubpartitions() int { return len(p.subs) }

// Subpartition returns subpartition i.
func (p *ResultPartition) Subpartition(i int) *Subpartition { return p.subs[i] }

// IsAvailable reports whether every subpartition is writable. It is cheap
// (one atomic load): the task asks it between records.
func (p *ResultPartition) IsAvailable() bool { return p.unwritable.Load() == 0 }

// Wake receives a token when the partition may have become available;
// check IsAvailable after a receive, a token can be stale.
func (p *ResultPartition) Wake() <-chan struct{} { return p.wake }

// Release drops every queued item and fails later writes with
// ErrReleased; a Blocking partition removes its files.
func (p *ResultPartition) Release() {
	for _, s := range p.subs {
		s.Release()
	}
	if p.blocking != nil {
		p.blocking.release()
	}
}

// setWritable records a subpartition's change of writability.
func (p *ResultPartition) setWritable(writable bool) {
	if !writable {
		p.unwritable.Add(1)
		return
	}
	if p.unwritable.Add(-1) == 0 {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}
