package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/grpcrpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// deregisterTimeout bounds how long a TaskManager that shuts down waits
// for the JobManager to take its deregistration.
const deregisterTimeout = 2 * time.Second

// deregister tells the JobManager's ResourceManager, when the TaskManager
// is registered, that it goes away: the jobs with subtasks on it restart
// at once on the slots that remain, with the shutdown as the cause,
// instead of learning it from the closed connection. A JobManager that
// does not answer is logged; the closed connection tells it later.
func (t *TaskManager) deregister() {
	if _, n := t.Registered(); n == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), deregisterTimeout)
	defer cancel()
	rm := t.client.ResourceManager(grpcrpc.Address(t.cfg.JobManager, minicluster.ResourceManagerName))
	m := &rpcpb.DisconnectTaskManager{TaskManagerId: t.id, Cause: rpc.EncodeError(errors.New("TaskManager " + t.id + " shut down"))}
	if _, err := rm.DisconnectTaskManager(ctx, m).Wait(ctx); err != nil {
		t.log.Warn("could not deregister from the jobmanager", "jobmanager", t.cfg.JobManager, "err", err)
		return
	}
	t.log.Info("deregistered from the jobmanager", "jobmanager", t.cfg.JobManager)
}
