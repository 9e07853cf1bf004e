package adaptive

import (
	"maps"
	"time"

	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// The Scheduler is the states' Context: it answers from the job's slot
// pool and bounds, and turns every request into an action.

// Options implements Context.
func (s *Scheduler) Options() Options { return s.opts }

// Plan implements Resources.
func (s *Scheduler) Plan() (allocator.Plan, error) {
	// What the TaskManagers reported holding is authoritative; without
	// a report, the generation created last says where state is.
	local := s.local
	if len(local) == 0 {
		local = s.previous
	}
	return allocator.Allocate(s.vertices, allocator.Resources{Slots: s.pool.Slots(), Local: local})
}

// HasDesiredResources implements Resources.
func (s *Scheduler) HasDesiredResources() bool {
	return len(s.pool.Slots()) >= allocator.DesiredSlots(s.vertices)
}

// Reserve implements Resources.
func (s *Scheduler) Reserve(p allocator.Plan) error { return s.pool.Reserve(p) }

// Lost implements Resources.
func (s *Scheduler) Lost(p allocator.Plan) []slots.ID {
	var lost []slots.ID
	for _, id := range p.Slots() {
		if !s.pool.Has(id) {
			lost = append(lost, id)
		}
	}
	return lost
}

// ScheduleTimeout implements Timers.
func (s *Scheduler) ScheduleTimeout(kind TimeoutKind, at time.Time) Timeout {
	s.seq++
	t := Timeout{Kind: kind, Seq: s.seq}
	s.ready = append(s.ready, ScheduleTimeout{Timeout: t, At: at})
	return t
}

// CreateExecutionGraph implements Generations.
func (s *Scheduler) CreateExecutionGraph(p allocator.Plan) *ExecutionGraph {
	g := newExecutionGraph(s.next, p)
	s.next++
	s.previous = p.Local(s.vertices)
	s.ready = append(s.ready, CreateExecutionGraph{Generation: g.Generation, Plan: p})
	return g
}

// Deploy implements Generations.
func (s *Scheduler) Deploy(g *ExecutionGraph) {
	g.deployed()
	s.ready = append(s.ready, scheduler.Deploy{Plan: g.Plan.Deploy, Generation: g.Generation})
}

// Cancel implements Generations.
func (s *Scheduler) Cancel(g *ExecutionGraph) {
	if ids := g.cancelRemaining(); len(ids) > 0 {
		s.ready = append(s.ready, scheduler.CancelTasks{IDs: ids})
	}
}

// TriggerCheckpoint implements Checkpoints.
func (s *Scheduler) TriggerCheckpoint(reason string) {
	s.ready = append(s.ready, TriggerCheckpoint{Reason: reason})
}

// TriggerSavepoint implements Checkpoints.
func (s *Scheduler) TriggerSavepoint(drain bool) {
	s.ready = append(s.ready, TriggerSavepoint{Drain: drain})
}

// OnFailure implements Failures, as the default scheduler decides.
func (s *Scheduler) OnFailure(cause error, now time.Time) (time.Duration, scheduler.RootCause, bool) {
	s.failure = cause
	if scheduler.Unrecoverable(cause) {
		return 0, scheduler.NewRootCause(cause, nil), false
	}
	if delay, ok := s.restart.OnFailure(now); ok {
		return delay, scheduler.RootCause{}, true
	}
	if _, none := s.restart.(scheduler.NoRestart); none {
		return 0, scheduler.NewRootCause(cause, nil), false
	}
	return 0, scheduler.NewRootCause(cause, scheduler.RestartsExhausted(s.restart)), false
}

// LaterFailure implements Failures.
func (s *Scheduler) LaterFailure(err error) {
	if err != nil && scheduler.IsConsequence(s.failure) && !scheduler.IsConsequence(err) {
		s.failure = err
	}
}

// Entered implements Reports.
func (s *Scheduler) Entered(st State) {
	s.ready = append(s.ready, Transitioned{From: s.state.Name(), To: st.Name(), Now: s.now})
	// States entered within one step chain: the next starts from this.
	s.state = st
}

// Rescaling implements Reports.
func (s *Scheduler) Rescaling(from, to map[int]int, reason string, now time.Time) {
	r := Rescaling{From: maps.Clone(from), To: maps.Clone(to), Reason: reason, Now: now}
	s.rescales = append(s.rescales, r)
	s.ready = append(s.ready, r)
}

// Terminate implements Reports.
func (s *Scheduler) Terminate(status scheduler.JobStatus, err error) {
	s.pool.Release()
	s.ready = append(s.ready, scheduler.Terminated{Status: status, Err: err})
}
