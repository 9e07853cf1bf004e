package minicluster

import (
	"context"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/resourcemanager"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
)

// JobOptions configure one job on a cluster.
type JobOptions struct {
	// Credit and Backlog are the buffers per channel (network defaults)
	// when the network memory holds them; the JobMaster gives channels
	// fewer when it does not.
	Credit, Backlog int
	// Restart is the restart strategy (nil: none).
	Restart scheduler.RestartStrategy
	// Checkpoints, RestoreFrom and AllowNonRestored: see jobmaster.Options.
	Checkpoints      *jobmaster.CheckpointOptions
	RestoreFrom      string
	AllowNonRestored bool
	// SlotWait is how long the job waits for enough slots, at its start
	// and at every restart (zero: it fails at once when the cluster has
	// too few free). See jobmaster.Options.SlotWait.
	SlotWait time.Duration
	// Clock is the JobMaster's (nil: the wall clock); tests pass a fake.
	Clock clock.Clock
	// Registered names the registered job that built the graph (nil: the
	// graph is embedded); see jobmaster.Options.Registered. The cluster's
	// Builder must build it.
	Registered *rpcpb.RegisteredJob
	// StateBackend is the job's state backend (nil: the TaskManagers'
	// own); see jobmaster.Options.StateBackend.
	StateBackend *op.StateBackend
	// Scheduler and Adaptive: see jobmaster.Options.
	Scheduler string
	Adaptive  adaptive.Options
	// JobName: see jobmaster.Options.JobName.
	JobName string
}

// Job is a job running on a cluster.
type Job struct {
	jm   *jobmaster.JobMaster
	done chan struct{}
	res  jobmaster.Result
	end  time.Time
}

// Submit starts a job on the cluster and returns at once. The job declares
// the slots it needs (its highest parallelism) to the ResourceManager,
// which offers it free slots now and later. Cancelling ctx, or closing
// the cluster, cancels the job. A job id that runs already, or a closed
// cluster, gives a job that already failed.
func (c *Cluster) Submit(ctx context.Context, jobID string, jg *graph.JobGraph, o JobOptions) *Job {
	if o.Credit <= 0 {
		o.Credit = network.DefaultCredit
	}
	if o.Backlog <= 0 {
		o.Backlog = network.DefaultBacklog
	}
	c.mu.Lock()
	switch {
	case c.mu.closed:
		c.mu.Unlock()
		return failed(jobID, ErrClosed)
	case c.mu.running[jobID]:
		c.mu.Unlock()
		return failed(jobID, fmt.Errorf("minicluster: job %s runs already", jobID))
	}
	c.mu.running[jobID] = true
	c.jobs.Add(1)
	c.mu.Unlock()
	ended := func() {
		c.mu.Lock()
		delete(c.mu.running, jobID)
		c.mu.Unlock()
		c.jobs.Done()
	}

	if cp := o.Checkpoints; cp != nil && cp.Storage != nil {
		c.storages.Use(cp.Storage) // the subtasks write through it
	}
	jm, err := jobmaster.New(jobID, jg, nil, c.net, c.jobMasterOptions(jobID, o))
	if err != nil {
		ended()
		return failed(jobID, err)
	}
	lo, hi := jm.SlotBounds()
	// The JobMaster's gateway is served before the declaration, and the
	// declaration is synchronous: the slots free now are offered through
	// it and are in the JobMaster's queue before it runs, so a job that
	// does not wait starts with them. Run stops serving it.
	unserve, err := jm.Serve()
	if err != nil {
		ended()
		return failed(jobID, err)
	}
	if err := c.rm.call(rmRequest{ev: resourcemanager.DeclareResources{Job: jobID, Min: lo, Max: max(hi, 1)}, jm: jm.Address()}); err != nil {
		unserve()
		ended()
		return failed(jobID, fmt.Errorf("minicluster: declare the resources of job %s: %w", jobID, err))
	}
	j := &Job{done: make(chan struct{}), jm: jm}
	jctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	go func() {
		defer ended()
		defer close(j.done)
		defer cancel()
		defer stop()
		j.res = jm.Run(jctx)
		j.end = time.Now()
		// The job's slots go back to the ResourceManager (the loop is
		// gone only when the cluster closed, after every job ended).
		if err := c.rm.call(rmRequest{ev: resourcemanager.JobEnded{Job: jobID}}); err != nil {
			c.log.Error("release the slots of an ended job", "job", jobID, "err", err)
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

// Await waits until the job's status satisfies cond and returns it, or
// returns the last status and false once the job ended without it or ctx
// is done. It wakes at every status the JobMaster publishes: no polling.
func (j *Job) Await(ctx context.Context, cond func(jobmaster.Status) bool) (jobmaster.Status, bool) {
	for {
		var changed <-chan struct{}
		if j.jm != nil {
			changed = j.jm.StatusChanged()
		}
		st := j.Status()
		if cond(st) {
			return st, true
		}
		select {
		case <-changed:
		case <-j.done:
			st := j.Status()
			return st, cond(st)
		case <-ctx.Done():
			return st, false
		}
	}
}

// UpdateRequirements asks the job's JobMaster to take new parallelism
// bounds (FLIP-291).
func (j *Job) UpdateRequirements(r jobmaster.RequirementsRequest) {
	if j.jm == nil {
		r.Reply <- fmt.Errorf("minicluster: the job did not start: %v", j.res.Err)
		return
	}
	j.jm.UpdateRequirements(r)
}

// TriggerSavepoint asks the job's JobMaster for a savepoint.
func (j *Job) TriggerSavepoint(r jobmaster.SavepointRequest) {
	if j.jm == nil {
		r.Reply <- jobmaster.SavepointReply{Err: j.res.Err}
		return
	}
	j.jm.TriggerSavepoint(r)
}
