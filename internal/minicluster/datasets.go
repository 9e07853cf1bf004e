package minicluster

import (
	"context"
	"errors"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/resourcemanager"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// The cluster partitions of the session cluster (FLIP-205): the
// TaskManagers report the partitions of cached streams they keep, on
// registration and in their heartbeats to the ResourceManager, whose
// table (resourcemanager/partitions.go) the JobManager reads to let a job
// read a complete cached dataset from the TaskManagers that hold it, and
// lists and releases under /datasets.

var _ cache.ClusterDatasets = (*Cluster)(nil)

// fromPartitions converts a TaskManager's reported partitions.
func fromPartitions(ps []*rpcpb.ClusterPartition) []resourcemanager.ClusterPartition {
	out := make([]resourcemanager.ClusterPartition, len(ps))
	for i, p := range ps {
		out[i] = resourcemanager.ClusterPartition{Dataset: p.GetDatasetId(), Production: p.GetProduction(),
			Index: int(p.GetIndex()), Total: int(p.GetTotal()), Records: p.GetRecords(), Bytes: p.GetBytes()}
	}
	return out
}

// ClusterDataset returns dataset id with where its partitions are
// served; ok is false when the table does not have it.
func (c *Cluster) ClusterDataset(id string) (ds cache.ClusterDataset, ok bool) {
	_ = c.rm.call(rmRequest{read: func(rm *resourcemanager.ResourceManager) {
		var info resourcemanager.DatasetInfo
		if info, ok = rm.Dataset(id); ok {
			ds = c.rm.located(info)
		}
	}})
	return ds, ok
}

// Datasets lists the datasets of the table, complete or not, by id.
func (c *Cluster) Datasets() []cache.ClusterDataset {
	var out []cache.ClusterDataset
	_ = c.rm.call(rmRequest{read: func(rm *resourcemanager.ResourceManager) {
		for _, info := range rm.Datasets() {
			out = append(out, c.rm.located(info))
		}
	}})
	return out
}

// ReleaseDataset forgets dataset id and has the TaskManagers that hold
// its partitions delete them; found is false for a dataset the table
// does not have.
func (c *Cluster) ReleaseDataset(id string) (found bool, err error) {
	found = true
	err = c.rm.call(rmRequest{ev: resourcemanager.ReleaseDataset{Dataset: id}})
	if errors.Is(err, resourcemanager.ErrInvalid) {
		return false, nil
	}
	return found, err
}

// CachingJobStarted puts aside the partitions of production until its
// job ends.
func (c *Cluster) CachingJobStarted(production int64) error {
	return c.rm.call(rmRequest{ev: resourcemanager.CachingJobStarted{Production: production}})
}

// DatasetsRead records that a job reads the datasets ids (their use, for
// the least-recently-used eviction).
func (c *Cluster) DatasetsRead(ids []string) error {
	return c.rm.call(rmRequest{ev: resourcemanager.DatasetsRead{Datasets: ids}})
}

// CachingJobEnded promotes the partitions of production to cluster
// partitions when its job finished, or releases them.
func (c *Cluster) CachingJobEnded(production int64, finished bool) error {
	var ev any = resourcemanager.CachingJobFailed{Production: production}
	if finished {
		ev = resourcemanager.CachingJobFinished{Production: production}
	}
	return c.rm.call(rmRequest{ev: ev})
}

// located is info with the data addresses of its partitions' holders. It
// runs on the loop.
func (l *rmLoop) located(info resourcemanager.DatasetInfo) cache.ClusterDataset {
	ds := cache.ClusterDataset{ID: info.ID, Production: info.Production, Total: info.Total}
	for _, p := range info.Partitions {
		ds.Partitions = append(ds.Partitions, cache.RemotePartition{Index: p.Index, TaskManager: p.TaskManager,
			Address: l.tms[p.TaskManager].data, Records: p.Records, Bytes: p.Bytes})
	}
	return ds
}

// releasePartitions has a TaskManager delete its partitions of a dataset:
// the ResourceManager's heartbeat to it names the dataset, and its answer
// (and its own report) says what it holds then. It does not wait.
func (l *rmLoop) releasePartitions(d resourcemanager.ReleasePartitions) {
	tm, ok := l.tms[d.TaskManager]
	if !ok {
		return
	}
	f := l.transport.TaskExecutor(tm.address).Heartbeat(context.Background(),
		&rpcpb.Heartbeat{SenderId: resourceManagerAddress, ReleaseDatasets: []*rpcpb.DatasetRelease{{DatasetId: d.Dataset, UpToProduction: d.Production}}})
	f.OnComplete(func(_ *rpcpb.Heartbeat, err error) {
		if err != nil {
			l.log.Warn("a TaskManager was not told to release a dataset", "taskmanager", d.TaskManager, "dataset", d.Dataset, "err", err)
		}
	})
}
