package jobmaster

import (
	"slices"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
)

// Status is a snapshot of a running job for other goroutines (the REST
// API, a JobClient). The loop publishes a new one after every batch of
// events; readers never touch the loop's state.
type Status struct {
	State       scheduler.JobStatus
	Generation  int
	Checkpoints checkpoint.Stats
	Vertices    []VertexMetrics
	// Failure is the latest failure that caused a restart or ended the job.
	Failure error
	// Scheduler is the adaptive scheduler's state ("Executing"; "" with
	// the default scheduler), Parallelism the parallelism of the
	// generation that runs by vertex, and Rescales its rescale history,
	// oldest first.
	Scheduler   string
	Parallelism map[int]int
	Rescales    []adaptive.Rescaling
	// RescaleDurations say how long each of Rescales took, from the
	// decision to the new generation executing (shorter than Rescales
	// while one is in progress).
	RescaleDurations []time.Duration
	// Requirements are the adaptive scheduler's parallelism bounds by
	// vertex (FLIP-291; nil with the default scheduler).
	Requirements map[int]adaptive.Bounds
	// Subtasks are the counters of the subtasks (observe.go); Timestamps
	// say when the job first entered each state; Restarts counts its
	// restarts.
	Subtasks   []SubtaskMetrics
	Timestamps map[scheduler.JobStatus]time.Time
	Restarts   int
	// Exceptions are the latest failures of subtasks, newest first.
	Exceptions []Exception
	// TaskManagers are those that offered the job slots.
	TaskManagers []TaskManagerUsage
}

// StatusChanged returns a channel that is closed once a snapshot newer
// than the one Status returns after this call is published: read it
// first, then Status, and wait on it while the status is not the one
// awaited.
func (jm *JobMaster) StatusChanged() <-chan struct{} {
	jm.changedMu.Lock()
	defer jm.changedMu.Unlock()
	if jm.changed == nil {
		jm.changed = make(chan struct{})
	}
	return jm.changed
}

// Status returns the latest published snapshot.
func (jm *JobMaster) Status() Status {
	if s := jm.status.Load(); s != nil {
		return *s
	}
	return Status{State: scheduler.Created}
}

// publish stores a new status snapshot.
func (jm *JobMaster) publish() {
	s := &Status{State: jm.sched.Status(), Generation: jm.sched.Generation(), Vertices: jm.vertexMetrics(), Failure: jm.sched.Failure()}
	if jm.cp != nil {
		s.Checkpoints = jm.cp.stats()
	}
	if jm.ada != nil {
		jm.rescaleDone()
		s.Scheduler, s.Parallelism, s.Rescales = jm.ada.s.State(), jm.ada.s.Parallelism(), jm.ada.s.Rescales()
		s.Requirements = jm.ada.requirements()
		s.RescaleDurations = slices.Clone(jm.gens.rescaled)
	}
	jm.observe(s)
	if s.Failure == nil && jm.lastFailure != nil {
		s.Failure = jm.lastFailure
	}
	jm.status.Store(s)
	jm.changedMu.Lock()
	if jm.changed != nil {
		close(jm.changed)
		jm.changed = nil
	}
	jm.changedMu.Unlock()
}
