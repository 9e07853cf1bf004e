package network

import (
	"errors"
	"fmt"
	"sync"
)

// ConnectionManager moves buffers from the producers' subpartitions to the
// consumers' input channels (Flink's ConnectionManager with its partition
// manager). A producer registers each result partition it writes; a
// consumer requests, for each of its input channels, the subpartition it
// reads; whichever comes first, the channel is connected when both are
// there, and the channel then announces its credit. The local
// implementation (Registry) connects them in memory; network/tcp.Manager
// carries the same items between TaskManagers.
type ConnectionManager interface {
	// RegisterPartition publishes a producer's partition.
	RegisterPartition(p *ResultPartition) error
	// RequestSubpartition connects ch to subpartition sub of partition id,
	// now or once the partition is registered.
	RequestSubpartition(id PartitionID, sub int, ch *InputChannel) error
	// ReleaseJob releases and forgets every partition of a job's
	// generation, and the requests still waiting for one.
	ReleaseJob(job string, generation int)
}

// Registry is the local ConnectionManager of the TaskManagers of one process:
// a buffer moves from the producer's subpartition to the consumer's input
// channel without a copy.
type Registry struct {
	mu         sync.Mutex
	partitions map[PartitionID]*ResultPartition
	waiting    map[PartitionID][]request
}

type request struct {
	sub int
	r   Receiver
}

// Receiver is the consumer end of a subpartition: an InputChannel of this
// process, or a connection manager's stand-in for an input channel of
// another process.
type Receiver interface {
	// Connect is called once, under the subpartition's lock, when s
	// connects to the receiver. It returns the credit the receiver
	// announces, and false when the receiver is released already.
	Connect(s *Subpartition) (credit int, ok bool)
	// Receive takes the next item the subpartition hands over, under
	// the subpartition's lock, so it must not wait. It returns false when
	// the receiver is gone; the subpartition then releases itself.
	Receive(it Item) bool
}

// Source is the producer end of an input channel, as the consumer's gate
// sees it: the Subpartition of this process, or a connection manager's
// stand-in for a subpartition of another process. The gate calls it
// without holding its own lock.
type Source interface {
	// Consumed returns the credit of one consumed item, and the memory
	// of a data buffer (nil for an event).
	Consumed(buf []byte)
	// Release says the consumer is gone.
	Release()
}

var _ ConnectionManager = (*Registry)(nil)

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{partitions: make(map[PartitionID]*ResultPartition), waiting: make(map[PartitionID][]request)}
}

// RegisterPartition implements ConnectionManager. A blocking partition
// that was released (its producer failed) is replaced by the re-run's.
func (r *Registry) RegisterPartition(p *ResultPartition) error {
	r.mu.Lock()
	if old, dup := r.partitions[p.id]; dup && !(old.blocking != nil && old.blocking.isReleased()) {
		r.mu.Unlock()
		return fmt.Errorf("network: partition %v is registered already", p.id)
	}
	r.partitions[p.id] = p
	reqs := r.waiting[p.id]
	delete(r.waiting, p.id)
	r.mu.Unlock()
	for _, q := range reqs {
		if err := connect(p, q.sub, q.r); err != nil {
			return err
		}
	}
	return nil
}

// RequestSubpartition implements ConnectionManager.
func (r *Registry) RequestSubpartition(id PartitionID, sub int, ch *InputChannel) error {
	if err := r.Connect(id, sub, ch); !errors.Is(err, ErrReleased) {
		return err
	}
	// The producer released its partition (it failed): the channel stays
	// unconnected and its task is cancelled with the rest of its
	// generation.
	return nil
}

// Connect connects receiver rc to subpartition sub of partition id, now or
// once the partition is registered: RequestSubpartition for any Receiver,
// except that a subpartition released already gives an error wrapping
// ErrReleased.
// A connection manager that serves other processes gives it its stand-ins
// for their input channels.
func (r *Registry) Connect(id PartitionID, sub int, rc Receiver) error {
	r.mu.Lock()
	p, ok := r.partitions[id]
	if !ok {
		r.waiting[id] = append(r.waiting[id], request{sub, rc})
	}
	r.mu.Unlock()
	if ok {
		return connect(p, sub, rc)
	}
	return nil
}

// ReleaseJob implements ConnectionManager.
func (r *Registry) ReleaseJob(job string, generation int) {
	r.mu.Lock()
	var released []*ResultPartition
	for id, p := range r.partitions {
		if id.Job == job && id.Generation == generation {
			released = append(released, p)
			delete(r.partitions, id)
		}
	}
	for id := range r.waiting {
		if id.Job == job && id.Generation == generation {
			delete(r.waiting, id)
		}
	}
	r.mu.Unlock()
	for _, p := range released {
		p.Release()
	}
}

// ReleaseProducer releases and forgets the partitions that one producer
// subtask of a job's generation wrote: it is about to run again (a region
// failover) and write them anew.
func (r *Registry) ReleaseProducer(job string, generation, vertex, subtask int) {
	r.mu.Lock()
	var released []*ResultPartition
	for id, p := range r.partitions {
		if id.Job == job && id.Generation == generation && id.Vertex == vertex && id.Subtask == subtask {
			released = append(released, p)
			delete(r.partitions, id)
		}
	}
	r.mu.Unlock()
	for _, p := range released {
		p.Release()
	}
}

// ConnectLocal connects input channel ch to subpartition s in memory: the
// channel announces its credit and receives what s may send. A released
// subpartition is not connected (its writer learns of the release).
func ConnectLocal(s *Subpartition, ch *InputChannel) { _ = s.Connect(ch) }

func connect(p *ResultPartition, sub int, r Receiver) error {
	if sub < 0 || sub >= len(p.subs) {
		return fmt.Errorf("network: partition %v has no subpartition %d", p.id, sub)
	}
	if err := p.subs[sub].Connect(r); err != nil {
		return fmt.Errorf("network: subpartition %d of %v: %w", sub, p.id, err)
	}
	return nil
}
