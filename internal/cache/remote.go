package cache

import (
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/network"
)

// RequestFunc connects ch to the cluster partition id, served by the
// TaskManager whose data plane is at addr (a ConnectionManager's
// RequestSubpartition once the address is known).
type RequestFunc func(id network.PartitionID, addr string, ch *network.InputChannel) error

// RemoteReader reads one cluster partition of a dataset over the data
// plane, from the TaskManager that holds it, with the records' timestamps.
type RemoteReader[T any] struct {
	dataset string
	index   int
	gate    *network.Gate
	rr      *network.RecordReader[T]
	// cur is the buffer being delivered, rest what is left of it.
	cur, rest []byte
}

// remoteCredit is the buffers in flight per remote partition.
const remoteCredit = 4

// OpenRemote requests partition index of dataset from the TaskManager at
// addr; records go to emit.
func OpenRemote[T any](dataset string, index int, addr string, request RequestFunc, c codec.Codec[T], emit func(ts int64, v T) error) (*RemoteReader[T], error) {
	r := &RemoteReader[T]{dataset: dataset, index: index, gate: network.NewGate(1, remoteCredit)}
	r.rr = network.NewRecordReader[T](c, emitInput[T]{emit})
	if err := request(network.DatasetPartitionID(dataset, index), addr, r.gate.Channel(0)); err != nil {
		r.gate.Release()
		return nil, &ReadError{Dataset: dataset, Err: fmt.Errorf("partition %d at %s: %w", index, addr, err)}
	}
	return r, nil
}

// Available receives a token when Read may find more.
func (r *RemoteReader[T]) Available() <-chan struct{} { return r.gate.Available() }

// Read emits up to about budget records and reports whether the partition
// ended; no record and not done means nothing arrived yet (wait for
// Available). A failed connection or a damaged file is a ReadError.
func (r *RemoteReader[T]) Read(budget int) (n int, done bool, err error) {
	for n < budget {
		if len(r.rest) == 0 {
			if r.cur != nil {
				r.gate.Recycle(0, r.cur)
				r.cur = nil
			}
			it, _, ok := r.gate.Poll()
			if !ok {
				return n, false, nil
			}
			switch e := it.Event.(type) {
			case nil:
				r.cur, r.rest = it.Buf, it.Buf
			case network.EndOfPartition:
				return n, true, nil
			case network.ChannelFailed:
				return n, false, &ReadError{Dataset: r.dataset, Err: fmt.Errorf("partition %d: %w", r.index, e.Err)}
			}
			continue
		}
		left := budget - n
		k, used, err := r.rr.DeliverUntil(r.rest, nil, nil, func() bool { left--; return left <= 0 })
		n += k
		r.rest = r.rest[used:]
		if err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

// Close releases the connection.
func (r *RemoteReader[T]) Close() error {
	r.gate.Release()
	return nil
}

// ClusterDataset is a dataset of a session cluster's cluster partitions
// as the ResourceManager's table has it: Total partitions, of which
// Partitions are held (all of them when it is complete).
type ClusterDataset struct {
	ID         string
	Production int64
	Total      int
	Partitions []RemotePartition
}

// Complete reports whether every partition is held.
func (d ClusterDataset) Complete() bool { return len(d.Partitions) == d.Total }

// RemotePartition is a partition of a ClusterDataset: the TaskManager
// that holds it and the address of its data plane.
type RemotePartition struct {
	Index          int
	TaskManager    string
	Address        string
	Records, Bytes int64
}

// ClusterDatasets is the table of a session cluster's datasets, for the
// JobManager's builds of jobs that use cached streams.
type ClusterDatasets interface {
	// ClusterDataset returns dataset id; ok is false when the table does
	// not have it.
	ClusterDataset(id string) (ds ClusterDataset, ok bool)
	// ReleaseDataset forgets dataset id and has the TaskManagers that hold
	// its partitions delete them, as DELETE /datasets/:id does; found is
	// false when the table does not have it.
	ReleaseDataset(id string) (found bool, err error)
	// DatasetsRead says that a job reads the datasets ids (the use that
	// the least-recently-used eviction of the quota orders by).
	DatasetsRead(ids []string) error
	// CachingJobStarted says that a job that writes cached streams as
	// production starts: what it writes becomes cluster partitions only
	// when it ends FINISHED (CachingJobEnded).
	CachingJobStarted(production int64) error
	// CachingJobEnded says how the job of production ended: finished, its
	// partitions are cluster partitions; otherwise they are released.
	CachingJobEnded(production int64, finished bool) error
}

// TaskManagerPartitions is what a TaskManager gives the cached streams of
// the jobs it runs: its store, and the way to request another
// TaskManager's partition.
type TaskManagerPartitions struct {
	Store   *Store
	Request RequestFunc
}
