package weir

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/runner"
)

// JobClient is a handle on a running job: take savepoints, stop it with a
// savepoint, cancel it, wait for its result.
type JobClient struct {
	env     *Env
	ctx     context.Context
	jctx    context.Context
	name    string
	jobID   string
	job     runner.Job
	graph   *graph.JobGraph // what runs, for the REST API's plan
	start   time.Time
	cancel  context.CancelFunc
	release context.CancelFunc
	// caches are the datasets the job reads and creates; the ones it
	// creates are complete once it finished (settled by Wait, once).
	caches  *cachePlan
	settled sync.Once

	// stops tracks the stop-with-savepoint requests (see savepoint).
	stops struct {
		sync.Mutex
		pending  []chan struct{} // closed when a request's reply was looked at
		location string          // the savepoint a stop completed with
	}
}

// ExecuteAsync starts the program on the Env's runner (the embedded
// mini-cluster) and returns at once. Cancelling ctx cancels the job. Call Wait to learn how it ended
// and to release its resources. Like Execute it runs, and forgets, the
// sinks added since the previous execution.
func (e *Env) ExecuteAsync(ctx context.Context, name string) (*JobClient, error) {
	// A registered builder's program is rebuilt by the TaskManagers (see
	// registeredspec.go); it is one execution, even one that cannot start.
	registered, rebuild := e.takeRegistration()
	return e.submit(ctx, name, e.takeSinks(), registered, rebuild)
}

// submit starts a job of sinks and what they need.
func (e *Env) submit(ctx context.Context, name string, sinks []*graph.Transformation, registered *rpcpb.RegisteredJob, rebuild funcspec.Builder) (_ *JobClient, err error) {
	jg, plan, err := e.jobGraphOf(sinks, true)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			plan.abort()
		}
	}()
	if registered != nil && (len(plan.reads) > 0 || len(plan.prods) > 0) {
		return nil, fmt.Errorf("weir: registered job %q: cached streams are not supported in registered jobs, whose TaskManagers build the program again", registered.GetName())
	}
	if registered != nil {
		production := time.Now().UnixNano()
		registerCaches(registered, plan, production)
		if err := plan.startClusterJob(e.cluster.datasets, production, e.opts.Logger); err != nil {
			return nil, err
		}
	}
	jobID := e.opts.JobID
	if jobID == "" {
		jobID = NewJobID()
	}
	e.accumulators.reset()
	cp, err := e.opts.Checkpoints.runnerConfig()
	if err != nil {
		return nil, err
	}
	if jg.Batch && cp != nil {
		// As in Flink, a batch job recovers by re-running, not from
		// checkpoints.
		e.opts.Logger.Info("batch mode takes no checkpoints; the checkpoint configuration is ignored")
		cp = nil
	}
	e.opts.Logger.Info("submitting job", "job", name, "id", jobID, "vertices", len(jg.Vertices), "registered", registered != nil)
	jctx, cancel := context.WithCancelCause(ctx)
	job, err := e.runner.Submit(jctx, jg, runner.Config{
		JobID:            jobID,
		JobName:          name,
		TaskManagers:     e.opts.TaskManagers,
		Slots:            e.opts.SlotsPerTaskManager,
		NetworkMemory:    e.opts.NetworkMemory,
		BufferTimeout:    e.opts.BufferTimeout,
		StateBackend:     e.opts.StateBackend.config(),
		Restart:          e.opts.Restart.r,
		Checkpoints:      cp,
		RestoreFrom:      e.opts.RestoreFrom,
		AllowNonRestored: e.opts.AllowNonRestored,
		Logger:           e.opts.Logger,
		Registered:       registered,
		Builder:          rebuild,
		Clock:            e.opts.taskClock,
		Scheduler:        e.opts.Scheduler,
		SchedulerMode:    e.opts.SchedulerMode,
	})
	if err != nil {
		cancel(nil)
		return nil, err
	}
	return &JobClient{env: e, ctx: ctx, jctx: jctx, name: name, start: time.Now(), jobID: jobID, job: job, graph: jg,
		cancel: func() { cancel(errCanceledByClient) }, release: func() { cancel(nil) }, caches: plan}, nil
}

var errCanceledByClient = errors.New("weir: canceled by the job client")

// JobID is the job's id: 32 lower-case hex characters.
func (c *JobClient) JobID() string { return c.jobID }

// Name is the job's name.
func (c *JobClient) Name() string { return c.name }

// StartTime is when the job was submitted.
func (c *JobClient) StartTime() time.Time { return c.start }

// Done is closed when the job ended.
func (c *JobClient) Done() <-chan struct{} { return c.job.Done() }

// JobStatus is a running job's state as of now.
type JobStatus struct {
	// State is Flink's job state: CREATED, RUNNING, RESTARTING, FAILING,
	// FAILED, CANCELLING, CANCELED or FINISHED.
	State       string
	Restarts    int
	Vertices    []VertexMetrics
	Checkpoints CheckpointStats
	// Failure is the latest failure that restarted or ended the job.
	Failure error
}

// Status returns the job's state as of now.
func (c *JobClient) Status() JobStatus {
	s := c.job.Status()
	out := JobStatus{State: string(s.State), Restarts: s.Generation, Failure: s.Failure,
		Checkpoints: checkpointStats(s.Checkpoints)}
	for _, v := range s.Vertices {
		out.Vertices = append(out.Vertices, VertexMetrics{Name: v.Name, Parallelism: v.Parallelism, RecordsIn: v.RecordsIn, RecordsOut: v.RecordsOut,
			Source: v.Source, SourceEmitted: v.SourceEmitted, SourceTotal: v.SourceTotal})
	}
	return out
}

// Cancel cancels the job; Wait then returns an error saying so.
func (c *JobClient) Cancel() { c.cancel() }

// Wait waits for the job to end. See Env.Execute for the errors.
func (c *JobClient) Wait() (*Result, error) {
	res := c.job.Wait()
	c.release()
	c.settle(res.Status == "FINISHED")
	out := &Result{JobID: c.jobID, JobName: c.name, Duration: res.Duration, Accumulators: c.env.accumulators.snapshot(), Restarts: res.Restarts,
		Checkpoints: checkpointStats(res.Checkpoints)}
	if res.Status == "FINISHED" {
		out.Savepoint = c.stopSavepoint()
	}
	for _, v := range res.Vertices {
		out.Vertices = append(out.Vertices, VertexMetrics{Name: v.Name, Parallelism: v.Parallelism, RecordsIn: v.RecordsIn, RecordsOut: v.RecordsOut})
	}
	switch res.Status {
	case "FINISHED":
		return out, nil
	case "CANCELED":
		if c.ctx.Err() != nil {
			return out, fmt.Errorf("weir: job %q canceled: %w", c.name, context.Cause(c.ctx))
		}
		if cause := context.Cause(c.jctx); cause != nil {
			return out, fmt.Errorf("weir: job %q canceled: %w", c.name, cause)
		}
		return out, fmt.Errorf("weir: job %q canceled", c.name)
	default:
		return out, fmt.Errorf("%w: %q: %w", ErrJobFailed, c.name, res.Err)
	}
}

// settle makes the caches the job created complete if it finished, and
// removes them otherwise, once: on a session cluster the JobManager does it
// as soon as anything sees the job ended (clusterJob.Status), so that a
// client that learns of the end finds the caches listed.
func (c *JobClient) settle(finished bool) {
	c.settled.Do(func() {
		if finished {
			c.caches.commit()
		} else {
			c.caches.abort()
		}
	})
}

// TriggerSavepoint takes a savepoint into a new directory under dir (empty:
// under the checkpoint storage) and returns its location, from which
// WithRestoreFrom starts a job again. The job goes on.
func (c *JobClient) TriggerSavepoint(ctx context.Context, dir string) (string, error) {
	return c.savepoint(ctx, runner.Savepoint, dir)
}

// StopWithSavepoint takes a savepoint and ends the job FINISHED. Without
// drain the job stops as it is, to be resumed from the savepoint with no
// result changed: no MaxWatermark, no end of input, no finish. With drain
// the sources end their input first, so every event-time timer and window
// fires and every operator finishes, and the savepoint is the job's final
// checkpoint: two-phase-commit sinks commit everything. Either way the
// savepoint is synchronous, as in Flink: no source emits after its
// barrier, and StopWithSavepoint returns once the job ended, with the
// savepoint's data committed by two-phase-commit sinks; Wait then says how
// the job ended.
func (c *JobClient) StopWithSavepoint(ctx context.Context, dir string, drain bool) (string, error) {
	kind := runner.SavepointTerminate
	if drain {
		kind = runner.SavepointDrain
	}
	loc, err := c.savepoint(ctx, kind, dir)
	if err != nil {
		return "", err
	}
	select {
	case <-c.job.Done():
	case <-ctx.Done():
		return loc, ctx.Err()
	}
	return loc, nil
}

// stopSavepoint waits until every stop-with-savepoint request has seen its
// reply (they return as soon as the job ended, which it has when Wait
// calls this) and returns the location the job was stopped with, if any.
func (c *JobClient) stopSavepoint() string {
	c.stops.Lock()
	pending := c.stops.pending
	c.stops.Unlock()
	for _, p := range pending {
		<-p
	}
	c.stops.Lock()
	defer c.stops.Unlock()
	return c.stops.location
}

func (c *JobClient) savepoint(ctx context.Context, kind runner.SavepointKind, dir string) (loc string, err error) {
	if cp := c.env.opts.Checkpoints; dir == "" && cp != nil && !cp.hasDefaultSavepointDir() {
		return "", fmt.Errorf("weir: %s of job %q: %w", kind, c.name, ErrNoSavepointDir)
	}
	if kind == runner.SavepointTerminate || kind == runner.SavepointDrain {
		// Wait reports the savepoint a stop completed with; the reply may
		// reach this goroutine only after the job ended.
		seen := make(chan struct{})
		c.stops.Lock()
		c.stops.pending = append(c.stops.pending, seen)
		c.stops.Unlock()
		defer func() {
			if err == nil {
				c.stops.Lock()
				c.stops.location = loc
				c.stops.Unlock()
			}
			close(seen)
		}()
	}
	reply := c.job.TriggerSavepoint(kind, dir)
	select {
	case r := <-reply:
		if r.Err != nil {
			return "", fmt.Errorf("weir: %s of job %q: %w", kind, c.name, r.Err)
		}
		return r.Location, nil
	case <-c.job.Done():
		select {
		case r := <-reply:
			if r.Err == nil {
				return r.Location, nil
			}
		default:
		}
		return "", fmt.Errorf("weir: %s of job %q: the job ended first", kind, c.name)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
