package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
)

// Session runs jobs on a session cluster that outlives them: a JobManager
// process's, whose TaskManagers run in other processes and register with
// it. Only registered jobs run there (a TaskManager of another process
// can rebuild nothing else); cfg's TaskManagers, Slots, NetworkMemory and
// BufferTimeout are the cluster's, not the job's, and are ignored.
type Session struct {
	Cluster *minicluster.Cluster
	// SlotWait is how long a job waits for enough slots, at its start and
	// at every restart, before it fails: TaskManagers register, and come
	// back, while it waits.
	SlotWait time.Duration
	// OnCheckpoint, when set, is called with every completed checkpoint of
	// a job before its tasks are notified of it (see
	// jobmaster.CheckpointOptions.Completed).
	OnCheckpoint func(jobID string, id int64, location string)
	// Scheduler is the scheduler of every job (jobmanager.scheduler; "":
	// adaptive for a streaming job, default for a batch one) and Adaptive
	// the adaptive scheduler's options: a session's TaskManagers come and
	// go, so its stabilization timeout applies.
	Scheduler string
	Adaptive  adaptive.Options
}

// Submit implements Runner.
func (s Session) Submit(ctx context.Context, jg *graph.JobGraph, cfg Config) (Job, error) {
	if cfg.Registered == nil {
		return nil, fmt.Errorf("weir: job %s: only a registered job runs on a session cluster", cfg.JobID)
	}
	cp, cleanup, err := openCheckpoints(ctx, cfg.Checkpoints, cfg.Logger)
	if err != nil {
		return nil, err
	}
	if cp != nil && s.OnCheckpoint != nil {
		cp.Completed = func(id int64, loc string) { s.OnCheckpoint(cfg.JobID, id, loc) }
	}
	job := s.Cluster.Submit(ctx, cfg.JobID, jg, minicluster.JobOptions{
		Restart:          cfg.Restart.strategy(cp != nil),
		Checkpoints:      cp,
		RestoreFrom:      cfg.RestoreFrom,
		AllowNonRestored: cfg.AllowNonRestored,
		SlotWait:         s.SlotWait,
		Registered:       cfg.Registered,
		StateBackend:     jobStateBackend(cfg.StateBackend),
		Scheduler:        Config{Scheduler: s.Scheduler}.scheduler(jg),
		Adaptive:         s.Adaptive,
		JobName:          cfg.JobName,
	})
	return &clusterJob{Job: job, cleanup: cleanup}, nil
}

// jobStateBackend is the state backend a job of a session cluster asks its
// TaskManagers for: the kind and incrementality of b. Where Pebble keeps
// its working directories is each TaskManager's own (its --data-dir).
func jobStateBackend(b op.StateBackend) *op.StateBackend {
	return &op.StateBackend{Pebble: b.Pebble, Incremental: b.Incremental}
}

// clusterJob is a job on a mini-cluster or a session cluster, with the
// checkpoint storage it releases when it ended.
type clusterJob struct {
	*minicluster.Job
	cleanup func()
	once    sync.Once
}

func (j *clusterJob) Wait() Result {
	res := j.Job.Wait()
	j.once.Do(j.cleanup)
	return res
}

func (j *clusterJob) TriggerSavepoint(kind SavepointKind, dir string) <-chan SavepointReply {
	reply := make(chan jobmaster.SavepointReply, 1)
	j.Job.TriggerSavepoint(jobmaster.SavepointRequest{Kind: kind, Dir: dir, Reply: reply})
	return reply
}
