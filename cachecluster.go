package weir

import (
	"fmt"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// Cached streams of a job on a session cluster (FLIP-205): the job is
// registered, so the JobManager builds its program and every TaskManager
// builds it again. A cached stream is named by the fingerprint of its
// lineage (lineage.go), the same in every build, and kept as cluster
// partitions: the TaskManagers that run the cache node's subtasks write
// them into their stores, keep them after the job and report them to the
// ResourceManager (internal/cluster/partitions.go). When the JobManager
// builds a later job whose cached stream the ResourceManager's table has
// complete, it reads the partitions in place of what is upstream: its
// source reads each from the TaskManager that holds it, over the data
// plane, and the job's registration names the partitions and where they
// are (BuildOptions.cache_reads), so that every TaskManager substitutes
// the same source. A dataset that lost partitions with a TaskManager is
// computed again, and written anew by a later production (the job's
// stamp, BuildOptions.cache_production), which replaces it whole.

// clusterCaching is what an Env on a session cluster knows of cluster
// partitions: the table (JobManager side) or the TaskManager's store and
// the datasets the job reads (TaskManager side).
type clusterCaching struct {
	datasets   cache.ClusterDatasets
	tm         *cache.TaskManagerPartitions
	reads      map[string]cache.ClusterDataset
	production int64
}

// on reports whether the Env builds a job of a session cluster.
func (c clusterCaching) on() bool { return c.datasets != nil || c.tm != nil }

// remoteSplits are the splits of a dataset of cluster partitions.
func remoteSplits(ds cache.ClusterDataset) []cacheSplit {
	splits := make([]cacheSplit, len(ds.Partitions))
	for i, p := range ds.Partitions {
		splits[i] = cacheSplit{Dataset: ds.ID, Partition: p.Index, Records: p.Records, Remote: true, Address: p.Address}
	}
	return splits
}

// readClusterCache returns the source that reads node's dataset in place
// of t, or t when the dataset is not complete on the cluster (logged when
// it was lost, with release: the execution runs).
func (e *Env) readClusterCache(node *cacheNode, t *graph.Transformation, plan *cachePlan, release bool) (*graph.Transformation, bool) {
	if e.cluster.tm != nil {
		ds, ok := e.cluster.reads[node.id]
		if !ok {
			return t, true
		}
		return node.remote(ds, e.cluster.tm.Request), false
	}
	if e.cluster.datasets == nil {
		return t, true
	}
	ds, ok := e.cluster.datasets.ClusterDataset(node.id)
	switch {
	case !ok:
		return t, true
	case !ds.Complete():
		if release {
			e.opts.Logger.Warn("cached result lost with a TaskManager: computing it again and caching it anew",
				"dataset", ds.ID, "stream", node.name, "partitions", len(ds.Partitions), "of", ds.Total)
		}
		return t, true
	}
	plan.clusterReads = append(plan.clusterReads, ds)
	return node.remote(ds, nil), false
}

// writeClusterCache gives the cache node t the writer of a new production
// of its cluster partitions (TaskManager side); the JobManager's build
// keeps t as it is.
func (e *Env) writeClusterCache(node *cacheNode, t *graph.Transformation, p int) *graph.Transformation {
	if e.cluster.tm == nil || e.cluster.tm.Store == nil {
		return t
	}
	prod, err := e.cluster.tm.Store.Begin(node.id, node.name, e.cluster.production, p)
	if err != nil {
		e.opts.Logger.Warn("cannot create the cache; the execution goes on without it", "stream", node.name, "error", err)
		return t
	}
	c := *t
	c.Factory = node.writer(prod)
	return &c
}

// clusterIsCached is CachedStream.IsCached on a session cluster.
func (e *Env) clusterIsCached(node *cacheNode) bool {
	switch {
	case !node.cluster:
		return false // not kept: its lineage has no fingerprint
	case e.cluster.tm != nil:
		_, ok := e.cluster.reads[node.id]
		return ok
	}
	ds, ok := e.cluster.datasets.ClusterDataset(node.id)
	return ok && ds.Complete()
}

// clusterInvalidate is CachedStream.Invalidate on a session cluster.
func (e *Env) clusterInvalidate(node *cacheNode) error {
	if !node.cluster || e.cluster.datasets == nil {
		return nil
	}
	found, err := e.cluster.datasets.ReleaseDataset(node.id)
	if err != nil {
		return fmt.Errorf("weir: invalidate the cache of %s: %w", node.name, err)
	}
	if found {
		e.opts.Logger.Info("cached result released: its TaskManagers delete it", "dataset", node.id, "stream", node.name)
	}
	return nil
}

// registerCaches puts into a registered job's options the production
// stamp of its caches and the cluster datasets it reads.
func registerCaches(job *rpcpb.RegisteredJob, plan *cachePlan, production int64) {
	o := job.GetOptions()
	if o == nil {
		return
	}
	o.CacheProduction = production
	for _, ds := range plan.clusterReads {
		m := &rpcpb.CachedDataset{DatasetId: ds.ID}
		for _, p := range ds.Partitions {
			m.Partitions = append(m.Partitions, &rpcpb.CachedPartition{Index: int32(p.Index), TaskManagerId: p.TaskManager,
				DataAddress: p.Address, Records: p.Records, Bytes: p.Bytes})
		}
		o.CacheReads = append(o.CacheReads, m)
	}
}

// rebuiltCaches is the TaskManager side of a registered job's options.
func rebuiltCaches(tm *cache.TaskManagerPartitions, o *rpcpb.BuildOptions) clusterCaching {
	c := clusterCaching{tm: tm, production: o.GetCacheProduction(), reads: make(map[string]cache.ClusterDataset)}
	for _, m := range o.GetCacheReads() {
		ds := cache.ClusterDataset{ID: m.GetDatasetId(), Production: c.production, Total: len(m.GetPartitions())}
		for _, p := range m.GetPartitions() {
			ds.Partitions = append(ds.Partitions, cache.RemotePartition{Index: int(p.GetIndex()), TaskManager: p.GetTaskManagerId(),
				Address: p.GetDataAddress(), Records: p.GetRecords(), Bytes: p.GetBytes()})
		}
		c.reads[ds.ID] = ds
	}
	return c
}
