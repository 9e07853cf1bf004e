// Package scheduler holds the JobMaster's decisions about a job's executions
// as a pure state machine: the JobMaster feeds it events (Step) and performs
// the actions it hands back (Ready), the way etcd's raft is driven. No
// goroutines, no I/O, no clock.
//
// This is the default (eager, streaming) scheduler: all subtasks are
// deployed at once into shared slots; the first task failure fails the job
// (restart strategies come with checkpoints), and the job finishes when every
// task has.
package scheduler

import (
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// JobStatus is a job's state, with Flink's names.
type JobStatus string

// Job states.
const (
	Created    JobStatus = "CREATED"
	Running    JobStatus = "RUNNING"
	Failing    JobStatus = "FAILING"
	Failed     JobStatus = "FAILED"
	Cancelling JobStatus = "CANCELLING"
	Canceled   JobStatus = "CANCELED"
	Finished   JobStatus = "FINISHED"
	Restarting JobStatus = "RESTARTING"
)

// Terminal reports whether the job can change no more.
func (s JobStatus) Terminal() bool { return s == Failed || s == Canceled || s == Finished }

// ExecutionState is a subtask attempt's state, with Flink's names.
type ExecutionState string

// Execution states.
const (
	ExecCreated   ExecutionState = "CREATED"
	ExecDeploying ExecutionState = "DEPLOYING"
	ExecRunning   ExecutionState = "RUNNING"
	ExecFinished  ExecutionState = "FINISHED"
	ExecCanceling ExecutionState = "CANCELING"
	ExecCanceled  ExecutionState = "CANCELED"
	ExecFailed    ExecutionState = "FAILED"
)

// Terminal reports whether the execution ended.
func (s ExecutionState) Terminal() bool {
	return s == ExecFinished || s == ExecCanceled || s == ExecFailed
}

// ExecutionID names a subtask of a job vertex.
type ExecutionID struct{ Vertex, Subtask int }

func (id ExecutionID) String() string { return fmt.Sprintf("%d/%d", id.Vertex, id.Subtask) }

// Events.
type (
	// Start asks to schedule the job into the free slots.
	Start struct{ Free []slots.ID }
	// TaskState reports a subtask's new state (Err for ExecFailed).
	TaskState struct {
		ID    ExecutionID
		State ExecutionState
		Err   error
	}
	// Cancel asks to cancel the job.
	Cancel struct{}
)

// Actions.
type (
	// Deploy starts the assigned subtasks.
	Deploy struct{ Plan slots.Plan }
	// CancelTasks cancels running subtasks.
	CancelTasks struct{ IDs []ExecutionID }
	// Terminated reports the job's final state.
	Terminated struct {
		Status JobStatus
		Err    error
	}
)

// ErrTaskCanceled is the failure of a task that was cancelled without the
// job asking for it.
var ErrTaskCanceled = errors.New("scheduler: task canceled unexpectedly")

// Scheduler is the state machine of one job.
type Scheduler struct {
	reqs    []slots.Request
	status  JobStatus
	execs   map[ExecutionID]ExecutionState
	order   []ExecutionID
	failure error
	ready   []any
}

// New returns the scheduler of a job with the given vertices.
func New(reqs []slots.Request) *Scheduler {
	s := &Scheduler{reqs: reqs, status: Created, execs: make(map[ExecutionID]ExecutionState)}
	for _, r := range reqs {
		for i := 0; i < r.Parallelism; i++ {
			id := ExecutionID{r.Vertex, i}
			s.execs[id] = ExecCreated
			s.order = append(s.order, id)
		}
	}
	return s
}

// Status is the job's state.
func (s *Scheduler) Status() JobStatus { return s.status }

// Failure is the root cause of a failed job.
func (s *Scheduler) Failure() error { return s.failure }

// ExecutionState returns the state of one subtask.
func (s *Scheduler) ExecutionState(id ExecutionID) ExecutionState { return s.execs[id] }

// Ready returns and clears the actions decided since the last call.
func (s *Scheduler) Ready() []any {
	r := s.ready
	s.ready = nil
	return r
}

// Step applies one event.
func (s *Scheduler) Step(ev any) {
	if s.status.Terminal() {
		return
	}
	switch e := ev.(type) {
	case Start:
		s.start(e)
	case TaskState:
		s.taskState(e)
	case Cancel:
		s.cancel()
	}
}

func (s *Scheduler) start(e Start) {
	if s.status != Created {
		return
	}
	plan, err := slots.Allocate(s.reqs, e.Free)
	if err != nil {
		s.failure = err
		s.terminate(Failed)
		return
	}
	s.status = Running
	for _, a := range plan.Assignments {
		s.execs[ExecutionID{a.Vertex, a.Subtask}] = ExecDeploying
	}
	s.ready = append(s.ready, Deploy{Plan: plan})
}

func (s *Scheduler) taskState(e TaskState) {
	prev, ok := s.execs[e.ID]
	if !ok || prev.Terminal() {
		return
	}
	if prev == ExecCanceling && !e.State.Terminal() {
		// A late report from a subtask being cancelled: keep cancelling.
		return
	}
	s.execs[e.ID] = e.State
	switch {
	case e.State == ExecFailed && s.status == Running:
		s.failure = e.Err
		s.status = Failing
		s.cancelRemaining()
	case e.State == ExecCanceled && s.status == Running:
		s.failure = fmt.Errorf("%w: subtask %v", ErrTaskCanceled, e.ID)
		s.status = Failing
		s.cancelRemaining()
	}
	if !s.allTerminal() {
		return
	}
	switch s.status {
	case Running:
		s.terminate(Finished)
	case Failing:
		s.terminate(Failed)
	case Cancelling:
		s.terminate(Canceled)
	}
}

func (s *Scheduler) cancel() {
	switch s.status {
	case Created:
		s.terminate(Canceled)
	case Running, Failing:
		s.status = Cancelling
		s.cancelRemaining()
		if s.allTerminal() {
			s.terminate(Canceled)
		}
	}
}

func (s *Scheduler) cancelRemaining() {
	var ids []ExecutionID
	for _, id := range s.order {
		st := s.execs[id]
		if st == ExecCreated {
			s.execs[id] = ExecCanceled
			continue
		}
		if !st.Terminal() && st != ExecCanceling {
			s.execs[id] = ExecCanceling
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		s.ready = append(s.ready, CancelTasks{IDs: ids})
	}
}

func (s *Scheduler) allTerminal() bool {
	for _, st := range s.execs {
		if !st.Terminal() {
			return false
		}
	}
	return true
}

func (s *Scheduler) terminate(st JobStatus) {
	s.status = st
	var err error
	if st == Failed {
		err = s.failure
	}
	s.ready = append(s.ready, Terminated{Status: st, Err: err})
}
