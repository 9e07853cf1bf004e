package cluster

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/rest/api"
	"github.com/weir-engine/weir/internal/runner"
)

// noJobs is a binary without registered jobs: these tests are about the
// processes' membership, not about jobs (cmd/weir's tests run jobs).
type noJobs struct{}

func (noJobs) Builder(io.Writer, *slog.Logger) funcspec.Builder { return nil }

func (noJobs) Start(context.Context, api.JobSubmission, Launch, runner.Runner, *slog.Logger) (Job, error) {
	return nil, errors.New("no jobs here")
}

func startJM(t *testing.T, rpcAddr string) *JobManager {
	t.Helper()
	jm, err := StartJobManager(JobManagerConfig{RPCAddr: rpcAddr, RESTAddr: "127.0.0.1:0", CheckpointDir: t.TempDir(),
		Heartbeat: Heartbeat{Interval: 50 * time.Millisecond, Timeout: time.Minute}}, noJobs{})
	if err != nil {
		t.Fatal(err)
	}
	return jm
}

// awaitRegistration waits until tm registered more than n times.
func awaitRegistration(t *testing.T, tm *TaskManager, n int) {
	t.Helper()
	for {
		next, count := tm.Registered()
		if count > n {
			return
		}
		select {
		case <-next:
		case <-time.After(20 * time.Second):
			t.Fatalf("no registration %d in 20 s", n+1)
		}
	}
}

// A TaskManager registers its slots with the JobManager, and when the
// JobManager goes away (its connection closes) registers again with the
// one that comes back at the same address; closing both leaves no
// goroutine behind.
func TestTaskManagerRegistersAgainWithAJobManagerThatCameBack(t *testing.T) {
	jm := startJM(t, "127.0.0.1:0")
	addr := jm.RPCAddr()
	tm, err := StartTaskManager(TaskManagerConfig{JobManager: addr, Slots: 3, RetryMin: 10 * time.Millisecond, RetryMax: 100 * time.Millisecond,
		Heartbeat: Heartbeat{Interval: 50 * time.Millisecond, Timeout: time.Minute}})
	if err != nil {
		jm.Close()
		t.Fatal(err)
	}
	defer tm.Close()
	awaitRegistration(t, tm, 0)
	if got := jm.Dispatcher().Cluster(); got.TaskManagers != 1 || got.SlotsTotal != 3 || got.SlotsAvailable != 3 {
		t.Errorf("cluster %+v, want one TaskManager with 3 free slots", got)
	}
	jm.Close()

	again := startJM(t, addr)
	defer again.Close()
	awaitRegistration(t, tm, 1)
	if got := again.Dispatcher().Cluster(); got.TaskManagers != 1 || got.SlotsTotal != 3 {
		t.Errorf("cluster %+v after the JobManager came back, want the TaskManager's 3 slots", got)
	}
}

// Bad configurations are refused with a clear error.
func TestStartRefusesBadConfigs(t *testing.T) {
	if _, err := StartJobManager(JobManagerConfig{RPCAddr: "127.0.0.1:0", RESTAddr: "127.0.0.1:0"}, noJobs{}); err == nil {
		t.Error("a JobManager without a checkpoint directory started")
	}
	if _, err := StartTaskManager(TaskManagerConfig{}); err == nil {
		t.Error("a TaskManager without a JobManager address started")
	}
}
