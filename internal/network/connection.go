package network

import (
	"fmt"
	"sync"
)

// ConnectionManager moves buffers from the producers' subpartitions to the
// consumers' input channels (Flink's ConnectionManager with its partition
// manager). A producer registers each result partition it writes; a
// consumer requests, for each of its input channels, the subpartition it
// reads; whichever comes first, the channel is connected when both are
// there, and the channel then announces its credit. The local
// implementation (Registry) connects them in memory; a TCP one will carry
// the same items between TaskManagers.
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
	ch  *InputChannel
}

var _ ConnectionManager = (*Registry)(nil)

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{partitions: make(map[PartitionID]*ResultPartition), waiting: make(map[PartitionID][]request)}
}

// RegisterPartition implements ConnectionManager.
func (r *Registry) RegisterPartition(p *ResultPartition) error {
	r.mu.Lock()
	if _, dup := r.partitions[p.id]; dup {
		r.mu.Unlock()
		return fmt.Errorf("network: partition %v is registered already", p.id)
	}
	r.partitions[p.id] = p
	reqs := r.waiting[p.id]
	delete(r.waiting, p.id)
	r.mu.Unlock()
	for _, q := range reqs {
		if err := connect(p, q.sub, q.ch); err != nil {
			return err
		}
	}
	return nil
}

// RequestSubpartition implements ConnectionManager.
func (r *Registry) RequestSubpartition(id PartitionID, sub int, ch *InputChannel) error {
	r.mu.Lock()
	p, ok := r.partitions[id]
	if !ok {
		r.waiting[id] = append(r.waiting[id], request{sub, ch})
	}
	r.mu.Unlock()
	if ok {
		return connect(p, sub, ch)
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

// ConnectLocal connects input channel ch to subpartition s in memory: the
// channel announces its credit and receives what s may send.
func ConnectLocal(s *Subpartition, ch *InputChannel) { s.connect(ch, ch.credit) }

func connect(p *ResultPartition, sub int, ch *InputChannel) error {
	if sub < 0 || sub >= len(p.subs) {
		return fmt.Errorf("network: partition %v has no subpartition %d", p.id, sub)
	}
	ConnectLocal(p.subs[sub], ch)
	return nil
}
