// Package jobmaster owns one job while it runs: its event loop is the only
// goroutine that touches the job's scheduler state. Task managers report
// state changes into the loop's queue; the loop steps the pure scheduler and
// performs the actions it decides (deploy, cancel), which are the only side
// effects here.
package jobmaster

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/queue"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// TaskManager is what the JobMaster needs of a TaskManager.
type TaskManager interface {
	ID() string
	Slots() []slots.ID
	Submit(d taskmanager.Deployment) error
	Cancel(job string, generation int, id scheduler.ExecutionID)
}

// VertexMetrics are a vertex's counters summed over its subtasks.
type VertexMetrics struct {
	ID                    int
	Name                  string
	Parallelism           int
	RecordsIn, RecordsOut int64
}

// Result is how a job ended.
type Result struct {
	JobID    string
	Status   scheduler.JobStatus
	Err      error
	Duration time.Duration
	Vertices []VertexMetrics
	// Restarts is the number of times the job restarted after a failure.
	Restarts int
}

// Options configure a JobMaster.
type Options struct {
	// Restart decides about restarts after failures (nil: none).
	Restart scheduler.RestartStrategy
	Logger  *slog.Logger
}

// JobMaster runs one job.
type JobMaster struct {
	jobID  string
	graph  *graph.JobGraph
	sched  *scheduler.Scheduler
	tms    map[string]TaskManager
	free   []slots.ID
	net    *network.Registry
	events *queue.Queue[any]
	log    *slog.Logger
	// restarts counts the restarts, for the result.
	restarts int

	metrics map[scheduler.ExecutionID]taskmanager.Report
}

// restartTimer is the event that ends the delay before a restart.
type restartTimer struct{}

// New returns the JobMaster of a job over the given TaskManagers.
func New(jobID string, jg *graph.JobGraph, tms []TaskManager, net *network.Registry, opts Options) *JobMaster {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var reqs []slots.Request
	for _, v := range jg.Vertices {
		reqs = append(reqs, slots.Request{Vertex: v.ID, Parallelism: v.Parallelism})
	}
	jm := &JobMaster{
		jobID: jobID, graph: jg, sched: scheduler.New(reqs, opts.Restart), tms: make(map[string]TaskManager),
		net: net, events: queue.New[any](), log: log.With("job", jobID),
		metrics: make(map[scheduler.ExecutionID]taskmanager.Report),
	}
	for _, tm := range tms {
		jm.tms[tm.ID()] = tm
		jm.free = append(jm.free, tm.Slots()...)
	}
	return jm
}

// Run runs the job to a terminal state. Cancelling ctx cancels the job.
func (jm *JobMaster) Run(ctx context.Context) Result {
	start := time.Now()
	defer func() { jm.net.ReleaseJob(jm.jobID, jm.sched.Generation()) }()
	var restart *time.Timer
	defer func() {
		if restart != nil {
			restart.Stop()
		}
	}()
	jm.sched.Step(scheduler.Start{Free: jm.free})
	done := ctx.Done()
	for {
		for _, a := range jm.sched.Ready() {
			switch a := a.(type) {
			case scheduler.Terminated:
				jm.log.Info("job ended", "status", a.Status, "err", a.Err)
				return Result{JobID: jm.jobID, Status: a.Status, Err: a.Err, Duration: time.Since(start),
					Vertices: jm.vertexMetrics(), Restarts: jm.restarts}
			case scheduler.ScheduleRestart:
				jm.log.Warn("job failed, restarting", "generation", a.Generation, "after", a.Delay, "cause", a.Cause)
				jm.net.ReleaseJob(jm.jobID, a.Generation-1)
				restart = time.AfterFunc(a.Delay, func() { jm.events.Push(restartTimer{}) })
			default:
				jm.perform(a)
			}
		}
		select {
		case <-jm.events.Signal():
			for _, ev := range jm.events.PopAll() {
				jm.handle(ev)
			}
		case <-done:
			done = nil
			jm.sched.Step(scheduler.Cancel{})
		}
	}
}

func (jm *JobMaster) handle(ev any) {
	switch e := ev.(type) {
	case taskmanager.Report:
		if e.Generation == jm.sched.Generation() {
			jm.metrics[e.ID] = e
		}
		jm.sched.Step(e.TaskState)
	case restartTimer:
		jm.restarts++
		jm.metrics = make(map[scheduler.ExecutionID]taskmanager.Report)
		jm.sched.Step(scheduler.Restart{})
	}
}

func (jm *JobMaster) perform(action any) {
	switch a := action.(type) {
	case scheduler.Deploy:
		report := func(r taskmanager.Report) { jm.events.Push(r) }
		for _, as := range a.Plan.Assignments {
			id := scheduler.ExecutionID{Vertex: as.Vertex, Subtask: as.Subtask}
			err := jm.tms[as.Slot.TaskManager].Submit(taskmanager.Deployment{
				JobID: jm.jobID, Generation: a.Generation, Graph: jm.graph, ID: id, Slot: as.Slot, Report: report,
			})
			if err != nil {
				jm.events.Push(taskmanager.Report{TaskState: scheduler.TaskState{
					ID: id, Generation: a.Generation, State: scheduler.ExecFailed, Now: time.Now(),
					Err: fmt.Errorf("deploy %v to %v: %w", id, as.Slot, err),
				}})
			}
		}
	case scheduler.CancelTasks:
		for _, id := range a.IDs {
			for _, tm := range jm.tms {
				tm.Cancel(jm.jobID, jm.sched.Generation(), id)
			}
		}
	}
}

func (jm *JobMaster) vertexMetrics() []VertexMetrics {
	out := make([]VertexMetrics, len(jm.graph.Vertices))
	for i, v := range jm.graph.Vertices {
		out[i] = VertexMetrics{ID: v.ID, Name: v.Name, Parallelism: v.Parallelism}
	}
	for id, r := range jm.metrics {
		out[id.Vertex].RecordsIn += r.RecordsIn
		out[id.Vertex].RecordsOut += r.RecordsOut
	}
	return out
}
