package network

import (
	"fmt"
	"strings"
)

// A BLOCKING_PERSISTENT partition is a blocking partition that outlives
// the job that wrote it: a partition of a cached stream (FLIP-205) that a
// TaskManager keeps as a cluster partition and serves to the jobs that
// read the cache, any number of times. Its files are written by a
// PartitionFile (one subpartition) and owned by the TaskManager's store of
// cluster partitions: releasing the ResultPartition stops serving them
// and leaves the files to the store.

// datasetJobPrefix starts the Job of a cluster partition's PartitionID.
const datasetJobPrefix = "dataset-"

// DatasetPartitionID names partition index of cached dataset dataset on
// the data plane.
func DatasetPartitionID(dataset string, index int) PartitionID {
	return PartitionID{Job: datasetJobPrefix + dataset, Subtask: index}
}

// DatasetOf returns the dataset a cluster partition's id names.
func DatasetOf(id PartitionID) (dataset string, ok bool) {
	return strings.CutPrefix(id.Job, datasetJobPrefix)
}

// OpenPersistentPartition returns the finished BLOCKING_PERSISTENT
// partition of the complete files dataPath and indexPath (one
// subpartition), ready to be registered with a ConnectionManager. The
// files are checked (their index), not read.
func OpenPersistentPartition(id PartitionID, dataPath, indexPath string) (*ResultPartition, error) {
	if err := CheckPartitionFile(dataPath, indexPath); err != nil {
		return nil, fmt.Errorf("network: partition %v: %w", id, err)
	}
	p := &ResultPartition{id: id, typ: BlockingPersistent, wake: make(chan struct{}, 1)}
	p.blocking = &blockingState{
		files: &partitionFiles{dataPath: dataPath, indexPath: indexPath},
		ended: []bool{true}, finished: true, keepFiles: true,
	}
	s := &Subpartition{parent: p}
	s.mu.out = *NewOutbox(0)
	s.mu.writable = true
	p.subs = []*Subpartition{s}
	return p, nil
}
