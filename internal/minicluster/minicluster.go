// Package minicluster runs a JobManager and TaskManagers inside the calling
// process: the embedded default of `weir run` and Env.Execute. The pieces
// are the same as in a distributed cluster; only the gateways between them
// are direct calls and the network is the in-process registry.
package minicluster

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
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
}

// Validate reports options that size nothing: a negative count or size.
// Zero takes the documented default.
func (o Options) Validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"TaskManagers", int64(o.TaskManagers)}, {"Slots", int64(o.Slots)},
		{"Credit", int64(o.Credit)}, {"Backlog", int64(o.Backlog)}, {"NetworkMemory", o.NetworkMemory},
	} {
		if f.v < 0 {
			return fmt.Errorf("minicluster: %s = %d: must not be negative (0 takes the default)", f.name, f.v)
		}
	}
	return nil
}

// Job is a job running on its mini-cluster.
type Job struct {
	jm   *jobmaster.JobMaster
	done chan struct{}
	res  jobmaster.Result
	end  time.Time
}

// Run starts a mini-cluster sized for jg, runs the job, and tears the
// cluster down; every goroutine it started has ended when it returns.
func Run(ctx context.Context, jobID string, jg *graph.JobGraph, opts Options) jobmaster.Result {
	return Submit(ctx, jobID, jg, opts).Wait()
}

// Submit starts a mini-cluster sized for jg and the job on it, and returns
// at once. Cancelling ctx cancels the job. Options that do not validate,
// or a cluster too small for the job, give a job that already failed.
func Submit(ctx context.Context, jobID string, jg *graph.JobGraph, opts Options) *Job {
	if err := opts.Validate(); err != nil {
		return failed(jobID, err)
	}
	if opts.TaskManagers <= 0 {
		opts.TaskManagers = 1
	}
	if opts.Slots <= 0 {
		need := 0
		for _, v := range jg.Vertices {
			need = max(need, v.Parallelism)
		}
		opts.Slots = (need + opts.TaskManagers - 1) / opts.TaskManagers
	}
	if opts.Credit <= 0 {
		opts.Credit = network.DefaultCredit
	}
	if opts.Backlog <= 0 {
		opts.Backlog = network.DefaultBacklog
	}
	if opts.NetworkMemory <= 0 {
		opts.NetworkMemory = network.DefaultNetworkMemory
	}
	bufferSize := opts.Task.BufferSize
	if bufferSize <= 0 {
		bufferSize = network.DefaultBufferSize
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts.Task.Logger = log
	net := network.NewRegistry()
	var tms []jobmaster.TaskManager
	var owned []*taskmanager.TaskManager
	for i := 0; i < opts.TaskManagers; i++ {
		pool := network.NewBufferPool(opts.NetworkMemory, bufferSize)
		tm := taskmanager.New(fmt.Sprintf("tm-%d", i), opts.Slots, net, pool, opts.Task, log)
		tms = append(tms, tm)
		owned = append(owned, tm)
	}
	jm, err := jobmaster.New(jobID, jg, tms, net, jobmaster.Options{
		Restart: opts.Restart, Checkpoints: opts.Checkpoints, RestoreFrom: opts.RestoreFrom,
		AllowNonRestored: opts.AllowNonRestored, Logger: log,
		Channels: network.Sizing{Credit: opts.Credit, Backlog: opts.Backlog},
	})
	if err != nil {
		return failed(jobID, err)
	}
	j := &Job{done: make(chan struct{}), jm: jm}
	go func() {
		defer close(j.done)
		defer func() { j.end = time.Now() }()
		j.res = jm.Run(ctx)
		for _, tm := range owned {
			tm.Close()
		}
	}()
	return j
}

// failed is a job that failed before it started.
func failed(jobID string, err error) *Job {
	j := &Job{done: make(chan struct{}), res: jobmaster.Result{JobID: jobID, Status: scheduler.Failed, Err: err}}
	close(j.done)
	return j
}

// Wait waits for the job to end and returns how it ended.
func (j *Job) Wait() jobmaster.Result {
	<-j.done
	return j.res
}

// EndTime is when the job ended; zero while it runs.
func (j *Job) EndTime() time.Time {
	select {
	case <-j.done:
		return j.end
	default:
		return time.Time{}
	}
}

// Done is closed when the job ended.
func (j *Job) Done() <-chan struct{} { return j.done }

// Status is the job's latest status snapshot.
func (j *Job) Status() jobmaster.Status {
	if j.jm == nil {
		return jobmaster.Status{State: j.res.Status, Failure: j.res.Err}
	}
	return j.jm.Status()
}

// TriggerSavepoint asks the job's JobMaster for a savepoint.
func (j *Job) TriggerSavepoint(r jobmaster.SavepointRequest) {
	if j.jm == nil {
		r.Reply <- jobmaster.SavepointReply{Err: j.res.Err}
		return
	}
	j.jm.TriggerSavepoint(r)
}
