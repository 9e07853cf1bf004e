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
}

// JobMaster runs one job.
type JobMaster struct {
	jobID  string
	graph  *graph.JobGraph
	sched  *scheduler.Scheduler
	tms    map[string]TaskManager
	free   []slots.ID
	net    *network.Registry
	events *queue.Queue[taskmanager.Report]
	log    *slog.Logger

	metrics map[scheduler.ExecutionID]taskmanager.Report
}

// New returns the JobMaster of a job over the given TaskManagers.
func New(jobID string, jg *graph.JobGraph, tms []TaskManager, net *network.Registry, log *slog.Logger) *JobMaster {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var reqs []slots.Request
	for _, v := range jg.Vertices {
		reqs = append(reqs, slots.Request{Vertex: v.ID, Parallelism: v.Parallelism})
	}
	jm := &JobMaster{
		jobID: jobID, graph: jg, sched: scheduler.New(reqs), tms: make(map[string]TaskManager),
		net: net, events: queue.New[taskmanager.Report](), log: log.With("job", jobID),
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
	defer jm.net.ReleaseJob(jm.jobID, 0)
	jm.sched.Step(scheduler.Start{Free: jm.free})
	done := ctx.Done()
	for {
		for _, a := range jm.sched.Ready() {
			if t, ok := a.(scheduler.Terminated); ok {
				jm.log.Info("job ended", "status", t.Status, "err", t.Err)
				return Result{JobID: jm.jobID, Status: t.Status, Err: t.Err, Duration: time.Since(start), Vertices: jm.vertexMetrics()}
			}
			jm.perform(a)
		}
		select {
		case <-jm.events.Signal():
			for _, r := range jm.events.PopAll() {
				jm.metrics[r.ID] = r
				jm.sched.Step(r.TaskState)
			}
		case <-done:
			done = nil
			jm.sched.Step(scheduler.Cancel{})
		}
	}
}

func (jm *JobMaster) perform(action any) {
	switch a := action.(type) {
	case scheduler.Deploy:
		for _, as := range a.Plan.Assignments {
			id := scheduler.ExecutionID{Vertex: as.Vertex, Subtask: as.Subtask}
			err := jm.tms[as.Slot.TaskManager].Submit(taskmanager.Deployment{
				JobID: jm.jobID, Graph: jm.graph, ID: id, Slot: as.Slot, Report: jm.events.Push,
			})
			if err != nil {
				jm.events.Push(taskmanager.Report{TaskState: scheduler.TaskState{
					ID: id, State: scheduler.ExecFailed, Err: fmt.Errorf("deploy %v to %v: %w", id, as.Slot, err),
				}})
			}
		}
	case scheduler.CancelTasks:
		for _, id := range a.IDs {
			for _, tm := range jm.tms {
				tm.Cancel(jm.jobID, 0, id)
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
