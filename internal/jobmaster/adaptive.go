package jobmaster

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// The adaptive scheduler (package adaptive, FLIP-160) in the JobMaster.
// The loop drives it as it drives the default scheduler (jobScheduler):
// adaptiveScheduler translates the loop's events into the adaptive
// scheduler's (the whole slot pool on every offer or loss, a completed
// stop-with-savepoint) and keeps what the loop asks of a scheduler (the
// generation that runs, its subtasks' states). Its own actions are
// performed by Loop.actAdaptive: a generation is created in two halves
// (CreateExecutionGraph restores at the plan's parallelism off the loop,
// ExecutionGraphCreated answers, then Deploy submits what was restored),
// timeouts run on the injected clock, and checkpoint outcomes go back to
// it.

// Scheduler kinds of Options.Scheduler (jobmanager.scheduler).
const (
	SchedulerDefault  = "default"
	SchedulerAdaptive = "adaptive"
)

// SchedulerFor is the scheduler a job runs on when none was chosen
// (jobmanager.scheduler's default): the adaptive one for a streaming job,
// so that it runs with the slots there are and rescales as they change,
// and the default one for a batch job, whose stages it schedules one
// after another (the adaptive scheduler runs every vertex at once, as
// Flink's does, which runs batch jobs on another scheduler too).
func SchedulerFor(jg *graph.JobGraph) string {
	if jg.Batch || blockingUpstream(jg) != nil {
		return SchedulerDefault
	}
	return SchedulerAdaptive
}

// jobScheduler is what the loop needs of a scheduler: the default one
// (*scheduler.Scheduler) or the adaptive one (*adaptiveScheduler).
type jobScheduler interface {
	Step(ev any)
	Ready() []any
	Status() scheduler.JobStatus
	Generation() int
	Failure() error
	ExecutionState(id graph.SubtaskID) scheduler.ExecutionState
}

// adaptiveScheduler adapts an *adaptive.Scheduler to the loop.
type adaptiveScheduler struct {
	s     *adaptive.Scheduler
	now   func() time.Time
	pool  map[slots.ID]bool
	gen   int
	execs map[graph.SubtaskID]scheduler.ExecutionState
	err   error
}

// adaptiveVertices are the allocator's view of jg: one slot-sharing group
// (every vertex shares slots, as the default scheduler places them), each
// vertex between 1 and its configured parallelism, within its max
// parallelism: the least of its operators' (a chain runs at one
// parallelism, and no operator may run above its number of key groups).
func adaptiveVertices(jg *graph.JobGraph) []allocator.Vertex {
	out := make([]allocator.Vertex, len(jg.Vertices))
	for i, v := range jg.Vertices {
		maxp := v.MaxParallelism
		for _, n := range v.Chain {
			if n.MaxParallelism > 0 && (maxp <= 0 || n.MaxParallelism < maxp) {
				maxp = n.MaxParallelism
			}
		}
		if maxp <= 0 {
			maxp = v.Parallelism
		}
		out[i] = allocator.Vertex{ID: v.ID, Min: 1, Max: min(v.Parallelism, maxp), MaxParallelism: maxp}
	}
	return out
}

func newAdaptiveScheduler(jg *graph.JobGraph, restart scheduler.RestartStrategy, opts adaptive.Options, now func() time.Time) (*adaptiveScheduler, error) {
	s, err := adaptive.New(adaptiveVertices(jg), restart, opts)
	if err != nil {
		return nil, fmt.Errorf("jobmaster: %w", err)
	}
	return &adaptiveScheduler{s: s, now: now, pool: map[slots.ID]bool{}, execs: map[graph.SubtaskID]scheduler.ExecutionState{}}, nil
}

// Step translates the loop's events: slots offered or lost become the
// whole pool (ResourcesChanged), Start and Stop (the stop-with-savepoint's
// savepoint completed) the adaptive scheduler's own; a subtask's report
// updates the generation's states.
func (a *adaptiveScheduler) Step(ev any) {
	now := a.now()
	switch e := ev.(type) {
	case scheduler.Start:
		ev = adaptive.Start{Now: now}
	case scheduler.SlotsOffered:
		for _, s := range e.Slots {
			a.pool[s] = true
		}
		ev = a.resources(now)
	case scheduler.TaskManagerLost:
		for s := range a.pool {
			if s.TaskManager == e.TaskManager {
				delete(a.pool, s)
			}
		}
		ev = a.resources(now)
	case scheduler.Stop:
		ev = adaptive.SavepointCompleted{Now: now}
	case scheduler.TaskState:
		if prev, ok := a.execs[e.ID]; ok && e.Generation == a.gen && !prev.Terminal() {
			a.execs[e.ID] = e.State
		}
	}
	a.s.Step(ev)
}

// resources is the event that gives the scheduler the whole pool.
func (a *adaptiveScheduler) resources(now time.Time) adaptive.ResourcesChanged {
	return adaptive.ResourcesChanged{Slots: slices.Collect(maps.Keys(a.pool)), Now: now}
}

// Ready returns the scheduler's actions; it remembers the job's failure.
func (a *adaptiveScheduler) Ready() []any {
	r := a.s.Ready()
	for _, x := range r {
		if t, ok := x.(scheduler.Terminated); ok {
			a.err = t.Err
		}
	}
	return r
}

// created starts generation gen at plan: its subtasks are CREATED.
func (a *adaptiveScheduler) created(gen int, plan allocator.Plan) {
	a.gen = gen
	a.execs = make(map[graph.SubtaskID]scheduler.ExecutionState, len(plan.Deploy.Assignments))
	for _, as := range plan.Deploy.Assignments {
		a.execs[graph.SubtaskID{Vertex: as.Vertex, Subtask: as.Subtask}] = scheduler.ExecCreated
	}
}

// deployed marks the generation's subtasks DEPLOYING.
func (a *adaptiveScheduler) deployed() {
	for id := range a.execs {
		a.execs[id] = scheduler.ExecDeploying
	}
}

func (a *adaptiveScheduler) Status() scheduler.JobStatus { return a.s.Status() }
func (a *adaptiveScheduler) Generation() int             { return a.gen }
func (a *adaptiveScheduler) Failure() error              { return a.err }
func (a *adaptiveScheduler) ExecutionState(id graph.SubtaskID) scheduler.ExecutionState {
	return a.execs[id]
}

// slotBounds are the slots the job declares: at least enough for every
// vertex's lower bound, at most what runs every vertex at its upper
// bound.
func (a *adaptiveScheduler) slotBounds() (lo, hi int) {
	vs := a.s.Vertices()
	return allocator.MinSlots(vs), allocator.DesiredSlots(vs)
}

// adaptiveTimeout is a timeout the adaptive scheduler asked for, fired.
type adaptiveTimeout struct{ t adaptive.Timeout }
