// Package minicluster runs a JobManager and TaskManagers inside the calling
// process: the embedded default of `weir run` and Env.Execute. The pieces
// are the same as in a distributed cluster; only the gateways between them
// go through the in-process rpc transport (which encodes every message in
// tests) and the network is the in-process registry.
//
// A Cluster is a session cluster: a ResourceManager loop (rmloop.go, over
// the pure resourcemanager state machine) with TaskManagers that register
// with it and outlive jobs; every submitted job gets a JobMaster, declares
// the slots it needs, and is offered slots by the ResourceManager, at once
// or when TaskManagers join later. TaskManagers can be added and removed
// while jobs run. Run and Submit are the one-job form Env.Execute uses: a
// cluster sized for the job, closed when the job ends.
//
// Goroutines: the ResourceManager loop, one per JobMaster loop (with the
// goroutines it starts), one per running subtask (in its TaskManager),
// and for a one-job run one that closes the cluster after the job.
package minicluster

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/task"
)

// Options size the mini-cluster.
type Options struct {
	// TaskManagers is the number of TaskManagers (default 1).
	TaskManagers int
	// Slots per TaskManager (default: enough for the job).
	Slots int
	// Credit and Backlog are the buffers per channel (network defaults)
	// when the network memory holds them; the JobMaster gives channels
	// fewer when it does not.
	Credit, Backlog int
	// NetworkMemory is the bytes of network buffers of each TaskManager
	// (default network.DefaultNetworkMemory); a job that needs more fails
	// at submission.
	NetworkMemory int64
	Task          task.Config
	// Restart is the restart strategy (nil: none).
	Restart scheduler.RestartStrategy
	// Checkpoints, RestoreFrom and AllowNonRestored: see jobmaster.Options.
	Checkpoints      *jobmaster.CheckpointOptions
	RestoreFrom      string
	AllowNonRestored bool
	Logger           *slog.Logger
	// Registered and Builder deploy a registered job by reference: see
	// JobOptions.Registered and ClusterOptions.Builder.
	Registered *rpcpb.RegisteredJob
	Builder    funcspec.Builder
	// Scheduler and Adaptive: see jobmaster.Options.
	Scheduler string
	Adaptive  adaptive.Options
	// JobName: see jobmaster.Options.JobName.
	JobName string
}

// Validate reports options that size nothing: a negative count or size.
// Zero takes the documented default.
func (o Options) Validate() error {
	return nonNegative(
		size{"TaskManagers", int64(o.TaskManagers)}, size{"Slots", int64(o.Slots)},
		size{"Credit", int64(o.Credit)}, size{"Backlog", int64(o.Backlog)}, size{"NetworkMemory", o.NetworkMemory},
	)
}

// size is a named option that must not be negative.
type size struct {
	name string
	v    int64
}

// nonNegative says which of sizes is negative, if one is.
func nonNegative(sizes ...size) error {
	for _, f := range sizes {
		if f.v < 0 {
			return fmt.Errorf("minicluster: %s = %d: must not be negative (0 takes the default)", f.name, f.v)
		}
	}
	return nil
}

// slotsNeeded is the slots a job needs: its highest parallelism, since all
// its vertices share slots.
func slotsNeeded(jg *graph.JobGraph) int {
	need := 0
	for _, v := range jg.Vertices {
		need = max(need, v.Parallelism)
	}
	return need
}

// cluster is the part of o that sizes the cluster of a one-job run.
func (o Options) cluster() ClusterOptions {
	return ClusterOptions{TaskManagers: o.TaskManagers, Slots: o.Slots, NetworkMemory: o.NetworkMemory, Task: o.Task, Logger: o.Logger,
		Builder: o.Builder}
}

// job is the part of o that configures the job of a one-job run.
func (o Options) job() JobOptions {
	return JobOptions{Credit: o.Credit, Backlog: o.Backlog, Restart: o.Restart, Checkpoints: o.Checkpoints,
		RestoreFrom: o.RestoreFrom, AllowNonRestored: o.AllowNonRestored, Registered: o.Registered, Scheduler: o.Scheduler, Adaptive: o.Adaptive,
		JobName: o.JobName}
}

// Run starts a mini-cluster sized for jg, runs the job, and tears the
// cluster down; every goroutine it started has ended when it returns.
func Run(ctx context.Context, jobID string, jg *graph.JobGraph, opts Options) jobmaster.Result {
	return Submit(ctx, jobID, jg, opts).Wait()
}

// Submit starts a mini-cluster sized for jg and the job on it, and returns
// at once; the cluster is closed when the job ended, before Wait returns.
// Cancelling ctx cancels the job. Options that do not validate, or a
// cluster too small for the job, give a job that already failed: the job
// does not wait for slots, since no TaskManager joins this cluster later.
// For the same reason the adaptive scheduler does not wait for the slots
// to stabilize: every TaskManager offered its slots before the job
// starts, so it runs at once at the parallelism they allow.
func Submit(ctx context.Context, jobID string, jg *graph.JobGraph, opts Options) *Job {
	if err := opts.Validate(); err != nil {
		return failed(jobID, err)
	}
	if opts.Adaptive.ResourceStabilizationTimeout == 0 {
		opts.Adaptive.ResourceStabilizationTimeout = -1
	}
	if opts.TaskManagers <= 0 {
		opts.TaskManagers = 1
	}
	if opts.Slots <= 0 {
		opts.Slots = max(1, (slotsNeeded(jg)+opts.TaskManagers-1)/opts.TaskManagers)
	}
	c, err := NewCluster(opts.cluster())
	if err != nil {
		return failed(jobID, err)
	}
	inner := c.Submit(ctx, jobID, jg, opts.job())
	j := &Job{jm: inner.jm, done: make(chan struct{})}
	go func() {
		defer close(j.done)
		j.res = inner.Wait()
		j.end = inner.end
		c.Close()
	}()
	return j
}
