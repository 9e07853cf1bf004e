package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/grpcrpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// A TaskManager keeps the cluster partitions of cached streams (FLIP-205)
// that its subtasks wrote, in DataDir/cluster-partitions (one TaskManager
// per data directory; without one, a temporary directory removed when it
// shuts down), serves them on its data plane to the later jobs that read
// them, and reports all it holds to the ResourceManager when it registers
// and whenever that changes. The ResourceManager's heartbeat may name
// datasets to release: their files are deleted before the answer.

// partitionsDirName is the store's directory under DataDir.
const partitionsDirName = "cluster-partitions"

// openPartitions opens the TaskManager's store of cluster partitions.
func (t *TaskManager) openPartitions() error {
	dir := filepath.Join(t.cfg.DataDir, partitionsDirName)
	if t.cfg.DataDir == "" {
		tmp, err := os.MkdirTemp("", "weir-"+t.id+"-partitions-")
		if err != nil {
			return fmt.Errorf("taskmanager: cluster partitions: %w", err)
		}
		dir, t.partitionsTemp = tmp, tmp
	}
	store, err := cache.OpenStore(cache.StoreOptions{Dir: dir, Serve: t.net, OnChange: t.reportPartitions, Logger: t.log})
	if err != nil {
		return fmt.Errorf("taskmanager: %w", err)
	}
	t.partitions = store
	if n := len(store.Partitions()); n > 0 {
		t.log.Info("holding cluster partitions kept in the data directory", "partitions", n, "dir", dir)
	}
	return nil
}

// clusterPartitions is what the rebuilt jobs' cached streams use: the
// store, and the data plane to read other TaskManagers' partitions.
func (t *TaskManager) clusterPartitions() cache.TaskManagerPartitions {
	return cache.TaskManagerPartitions{Store: t.partitions, Request: func(id network.PartitionID, addr string, ch *network.InputChannel) error {
		t.locs.recordPartition(id, addr)
		return t.net.RequestSubpartition(id, 0, ch)
	}}
}

// partitionReport is the store's partitions as the ResourceManager takes
// them.
func (t *TaskManager) partitionReport() []*rpcpb.ClusterPartition {
	var out []*rpcpb.ClusterPartition
	for _, h := range t.partitions.Partitions() {
		out = append(out, &rpcpb.ClusterPartition{DatasetId: h.Dataset, Production: h.Production, Index: int32(h.Index),
			Total: int32(h.Total), Records: h.Files.Records, Bytes: h.Files.Bytes})
	}
	return out
}

// reportPartitions sends the full report to the ResourceManager (when
// registered: a registration carries it anyway). It runs when the store
// changed, on the goroutine that changed it: a subtask's that finished
// its partition reports before its job may end.
func (t *TaskManager) reportPartitions() {
	if _, n := t.Registered(); n == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.cfg.Heartbeat.Timeout)
	defer cancel()
	rm := t.client.ResourceManager(grpcrpc.Address(t.cfg.JobManager, minicluster.ResourceManagerName))
	m := &rpcpb.Heartbeat{SenderId: t.id, ReportPartitions: true, ClusterPartitions: t.partitionReport()}
	if _, err := rm.Heartbeat(ctx, m).Wait(ctx); err != nil {
		t.log.Warn("could not report the cluster partitions to the jobmanager", "err", err)
	}
}

// releasing is the TaskManager's gateway that deletes the datasets a
// heartbeat of the ResourceManager names, and answers with its report.
type releasing struct {
	rpc.TaskExecutorGateway
	t *TaskManager
}

// Heartbeat releases the datasets m names, then answers.
func (g releasing) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	for _, r := range m.GetReleaseDatasets() {
		g.t.partitions.Release(r.GetDatasetId(), r.GetUpToProduction())
	}
	f := g.TaskExecutorGateway.Heartbeat(ctx, m)
	return rpc.Then(f, func(r *rpcpb.Heartbeat) (*rpcpb.Heartbeat, error) {
		r.ReportPartitions, r.ClusterPartitions = true, g.t.partitionReport()
		return r, nil
	})
}
