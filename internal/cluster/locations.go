package cluster

import (
	"context"
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// producer names the subtask that produces a partition.
type producer struct {
	job                         string
	generation, vertex, subtask int
}

// locations are the data addresses of the producers that this
// TaskManager's subtasks read, as their deployment descriptors name them:
// the data plane's Locate.
type locations struct {
	mu sync.Mutex
	at map[producer]string
	// latest is the newest generation deployed here of each job.
	latest map[string]int
}

func newLocations() *locations {
	return &locations{at: make(map[producer]string), latest: make(map[string]int)}
}

// record learns the producers of a deployment. It returns the older
// generations of the job that a newer one replaces here, whose partitions
// the caller releases.
func (l *locations) record(d *rpcpb.TaskDeploymentDescriptor) (job string, older []int) {
	job, gen, _ := rpc.FromTaskKey(d.GetTask())
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, g := range d.GetInputs() {
		addrs := g.GetProducerDataAddresses()
		for i, p := range g.GetProducerSubtasks() {
			if i < len(addrs) {
				l.at[producer{job, gen, int(g.GetProducerVertex()), int(p)}] = addrs[i]
			}
		}
	}
	prev, seen := l.latest[job]
	if !seen || gen > prev {
		l.latest[job] = gen
		if seen {
			for g := prev; g < gen; g++ {
				older = append(older, g)
			}
			for k := range l.at {
				if k.job == job && k.generation < gen {
					delete(l.at, k)
				}
			}
		}
	}
	return job, older
}

// recordPartition learns that partition id (a cluster partition a cached
// stream reads) is served at addr.
func (l *locations) recordPartition(id network.PartitionID, addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.at[producer{id.Job, id.Generation, id.Vertex, id.Subtask}] = addr
}

// locate is the data plane's Locate.
func (l *locations) locate(id network.PartitionID) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	addr, ok := l.at[producer{id.Job, id.Generation, id.Vertex, id.Subtask}]
	if !ok {
		return "", fmt.Errorf("no deployment here names the producer of partition %v", id)
	}
	return addr, nil
}

// locating is a TaskManager's gateway that learns, from every deployment,
// where the producers its subtask reads run, before the subtask starts; a
// deployment of a newer generation releases the partitions of the older
// ones produced here.
type locating struct {
	rpc.TaskExecutorGateway
	locs *locations
	net  network.ConnectionManager
}

// SubmitTask records the deployment's producers, then deploys it.
func (g locating) SubmitTask(ctx context.Context, d *rpcpb.TaskDeploymentDescriptor) *rpc.Future[*rpcpb.SubmitTaskResponse] {
	job, older := g.locs.record(d)
	for _, gen := range older {
		g.net.ReleaseJob(job, gen)
	}
	return g.TaskExecutorGateway.SubmitTask(ctx, d)
}
