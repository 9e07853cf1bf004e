package runner

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/task"
)

// Embedded runs every job on a mini-cluster of its own inside the calling
// process, torn down when the job ends.
type Embedded struct{}

// Submit implements Runner.
func (Embedded) Submit(ctx context.Context, jg *graph.JobGraph, cfg Config) (Job, error) {
	if cfg.Registered != nil && cfg.Builder == nil {
		return nil, fmt.Errorf("weir: registered job %q: no builder to deploy it with", cfg.Registered.GetName())
	}
	cp, cleanup, err := openCheckpoints(ctx, cfg.Checkpoints, cfg.Logger)
	if err != nil {
		return nil, err
	}
	job := minicluster.Submit(ctx, cfg.JobID, jg, minicluster.Options{
		TaskManagers:     cfg.TaskManagers,
		Slots:            cfg.Slots,
		NetworkMemory:    cfg.NetworkMemory,
		Task:             task.Config{BufferTimeout: cfg.BufferTimeout, StateBackend: cfg.StateBackend, Clock: cfg.Clock},
		Restart:          cfg.Restart.strategy(cp != nil),
		Checkpoints:      cp,
		RestoreFrom:      cfg.RestoreFrom,
		AllowNonRestored: cfg.AllowNonRestored,
		Logger:           cfg.Logger,
		Registered:       cfg.Registered,
		Builder:          cfg.Builder,
		Scheduler:        cfg.scheduler(jg),
		Adaptive:         adaptive.Options{Mode: adaptive.Mode(cfg.SchedulerMode)},
		JobName:          cfg.JobName,
	})
	return &clusterJob{Job: job, cleanup: cleanup}, nil
}

// openCheckpoints opens the storage and builds the JobMaster's options;
// cleanup closes the storage and removes a temporary directory.
func openCheckpoints(ctx context.Context, c *Checkpoints, log *slog.Logger) (opts *jobmaster.CheckpointOptions, cleanup func(), err error) {
	cleanup = func() {}
	if c == nil {
		return nil, cleanup, nil
	}
	dir := c.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "weir-checkpoints-")
		if err != nil {
			return nil, cleanup, fmt.Errorf("weir: checkpoint directory: %w", err)
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	st, err := storage.Open(ctx, dir, storage.Options{Logger: log, SavepointDir: c.SavepointDir})
	if err != nil {
		cleanup()
		return nil, func() {}, fmt.Errorf("weir: checkpoint storage: %w", err)
	}
	cp := checkpoint.DefaultOptions()
	cp.Enabled, cp.Interval = true, c.Interval
	if c.Timeout > 0 {
		cp.Timeout = c.Timeout
	}
	cp.MinPauseBetween = c.MinPause
	if c.MaxConcurrent > 0 {
		cp.MaxConcurrent = c.MaxConcurrent
	}
	cp.TolerableFailures = c.TolerableFailures
	if c.Retained > 0 {
		cp.Retained = c.Retained
	}
	cp.FinalCheckpointOnEndOfData = !c.DisableFinalCheckpoint && !c.DisableCheckpointsAfterTasksFinish
	cp.NoCheckpointsAfterTasksFinish = c.DisableCheckpointsAfterTasksFinish
	if err := cp.Validate(); err != nil {
		cleanup()
		return nil, func() {}, fmt.Errorf("weir: %w", err)
	}
	close := cleanup
	cleanup = func() { st.Close(); close() }
	return &jobmaster.CheckpointOptions{Options: cp, Storage: st, Unaligned: c.Unaligned, AlignedTimeout: c.AlignedTimeout}, cleanup, nil
}
