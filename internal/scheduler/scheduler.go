// Package scheduler holds the JobMaster's decisions about a job's executions
// as a pure state machine: the JobMaster feeds it events (Step) and performs
// the actions it hands back (Ready), the way etcd's raft is driven. No
// goroutines, no I/O, no clock.
//
// This is the default (eager, streaming) scheduler: all subtasks are
// deployed at once into shared slots; a task failure cancels every other
// task and, if the restart strategy allows, deploys all of them again as a
// new generation after a delay (the JobMaster restores them from the latest
// checkpoint); otherwise the job fails. The job finishes when every task
// has. Reports carry the generation they belong to, so late reports of a
// cancelled generation are ignored.
//
// The slots are the job's: those given at Start and offered later
// (SlotsOffered), less those of TaskManagers that were lost
// (TaskManagerLost). A lost TaskManager fails the executions it ran at
// once, as a task failure does. Every generation is placed anew in the
// slots the job has then, so a restart after a lost TaskManager runs on
// the remaining ones. When they are too few, a job started with
// WaitForSlots waits (AwaitResources) for SlotsOffered or a
// ResourceTimeout; otherwise it fails at once.
package scheduler

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/weir-engine/weir/internal/graph"
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

// Events.
type (
	// Start asks to schedule the job into the free slots (and any offered
	// before). With WaitForSlots a job whose slots are too few waits for
	// more, at the start and at every restart; without, it fails.
	Start struct {
		Free         []slots.ID
		WaitForSlots bool
	}
	// SlotsOffered gives the job more slots.
	SlotsOffered struct{ Slots []slots.ID }
	// TaskManagerLost takes the slots of a TaskManager away and fails the
	// executions that ran there.
	TaskManagerLost struct {
		TaskManager, Reason string
		Now                 time.Time
	}
	// ResourceTimeout ends the wait for the slots of Generation (see
	// AwaitResources): the job fails.
	ResourceTimeout struct{ Generation int }
	// TaskState reports a subtask's new state (Err for ExecFailed).
	TaskState struct {
		ID         graph.SubtaskID
		Generation int
		State      ExecutionState
		Err        error
		Now        time.Time
	}
	// Cancel asks to cancel the job.
	Cancel struct{}
	// Restart deploys the next generation once the delay of a
	// ScheduleRestart has passed.
	Restart struct{}
	// Stop ends the job after a stop-with-savepoint completed: the tasks,
	// notified of the savepoint, commit and end by themselves; the job ends
	// FINISHED once all did, or FAILED, without a restart, if one failed
	// meanwhile (the savepoint stands: a job restored from it commits what
	// this one could not).
	Stop struct{}
	// GlobalFailure fails the running generation from outside any task
	// (e.g. too many failed checkpoints), restarting per the strategy.
	GlobalFailure struct {
		Err error
		Now time.Time
	}
)

// Actions.
type (
	// Deploy starts the assigned subtasks of a generation. An Incremental
	// one adds subtasks to a generation that runs already (stage-by-stage
	// scheduling, see stages.go).
	Deploy struct {
		Plan        slots.Plan
		Generation  int
		Incremental bool
	}
	// ScheduleRestart asks for a Restart event after Delay; every task of
	// the failed generation has ended.
	ScheduleRestart struct {
		Delay      time.Duration
		Generation int
		Cause      error
	}
	// AwaitResources says that Generation waits for slots: Err says how
	// many it needs and has. The caller bounds the wait with a
	// ResourceTimeout.
	AwaitResources struct {
		Generation int
		Err        error
	}
	// CancelTasks cancels running subtasks.
	CancelTasks struct{ IDs []graph.SubtaskID }
	// RegionFailover reports that the failure of a pipelined region is
	// handled by running Rerun again (stage-by-stage scheduling); the
	// subtasks are deployed by later Deploy actions.
	RegionFailover struct {
		Rerun []graph.SubtaskID
		Cause error
	}
	// Terminated reports the job's final state.
	Terminated struct {
		Status JobStatus
		Err    error
	}
)

// ErrTaskCanceled is the failure of a task that was cancelled without the
// job asking for it.
var ErrTaskCanceled = errors.New("scheduler: task canceled unexpectedly")

// ErrTaskManagerLost is the failure of a task whose TaskManager was lost.
var ErrTaskManagerLost = errors.New("scheduler: TaskManager lost")

// Scheduler is the state machine of one job.
type Scheduler struct {
	reqs    []slots.Request
	restart RestartStrategy
	// free is every slot the job has; plan the placement of the current
	// generation within them.
	free []slots.ID
	plan slots.Plan
	// waitForSlots is Start's; waiting is set while a generation waits
	// for slots, waitErr says for how many.
	waitForSlots bool
	waiting      bool
	waitErr      error
	generation   int
	delay        time.Duration
	// stopping is set by Stop: the job finishes once all tasks ended.
	stopping bool
	status   JobStatus
	execs    map[graph.SubtaskID]ExecutionState
	order    []graph.SubtaskID
	failure  RootCause
	ready    []any
	// stages is set for stage-by-stage scheduling (SetStages).
	stages *stages
	// RegionRestarts counts the regions that failed over (stage-by-stage
	// scheduling only).
	RegionRestarts int
}

// New returns the scheduler of a job with the given vertices; a nil
// restart strategy means NoRestart.
func New(reqs []slots.Request, restart RestartStrategy) *Scheduler {
	if restart == nil {
		restart = NoRestart{}
	}
	s := &Scheduler{reqs: reqs, restart: restart, status: Created, execs: make(map[graph.SubtaskID]ExecutionState)}
	for _, r := range reqs {
		for i := 0; i < r.Parallelism; i++ {
			id := graph.SubtaskID{Vertex: r.Vertex, Subtask: i}
			s.execs[id] = ExecCreated
			s.order = append(s.order, id)
		}
	}
	return s
}

// Status is the job's state.
func (s *Scheduler) Status() JobStatus { return s.status }

// Generation is the number of the current deployment (0 first, one more
// per restart).
func (s *Scheduler) Generation() int { return s.generation }

// Failure is the root cause of a failed job.
func (s *Scheduler) Failure() error { return s.failure.Err() }

// ExecutionState returns the state of one subtask.
func (s *Scheduler) ExecutionState(id graph.SubtaskID) ExecutionState { return s.execs[id] }

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
	case SlotsOffered:
		s.free = append(s.free, e.Slots...)
		if s.waiting {
			s.place()
		}
	case TaskManagerLost:
		s.taskManagerLost(e)
	case ResourceTimeout:
		if s.waiting && e.Generation == s.pendingGeneration() {
			s.failure = NewRootCause(s.waitErr, nil)
			s.terminate(Failed)
		}
	case TaskState:
		s.taskState(e)
	case Cancel:
		s.cancel()
	case Restart:
		s.redeploy()
	case Stop:
		if s.status == Running {
			s.stopping = true
			s.settle()
		}
	case GlobalFailure:
		if s.status == Running && !s.stopping {
			s.fail(e.Err, e.Now)
			s.settle()
		}
	}
}

func (s *Scheduler) start(e Start) {
	if s.status != Created || s.waiting {
		return
	}
	s.free = append(s.free, e.Free...)
	s.waitForSlots = e.WaitForSlots
	s.place()
}

// pendingGeneration is the generation that is deployed next.
func (s *Scheduler) pendingGeneration() int {
	if s.status == Created {
		return s.generation
	}
	return s.generation + 1
}

// place deploys the next generation (the first, or a restart) into the
// job's slots, or waits for more, or fails the job for want of them.
func (s *Scheduler) place() {
	if s.stages != nil {
		s.placeStages()
		return
	}
	plan, err := slots.Allocate(s.reqs, s.free)
	switch {
	case err != nil && s.waitForSlots:
		s.waitErr = err
		if !s.waiting {
			s.waiting = true
			s.ready = append(s.ready, AwaitResources{Generation: s.pendingGeneration(), Err: err})
		}
		return
	case err != nil:
		s.failure = NewRootCause(err, nil)
		s.terminate(Failed)
		return
	}
	s.waiting, s.waitErr = false, nil
	if s.status == Restarting {
		s.generation++
		s.failure = RootCause{}
	}
	s.plan = plan
	s.deploy()
}

func (s *Scheduler) deploy() {
	s.status = Running
	for _, a := range s.plan.Assignments {
		s.execs[a.SubtaskID] = ExecDeploying
	}
	s.ready = append(s.ready, Deploy{Plan: s.plan, Generation: s.generation})
}

func (s *Scheduler) redeploy() {
	if s.status != Restarting || !s.allTerminal() || s.waiting {
		return
	}
	s.place()
}

// taskManagerLost drops the TaskManager's slots and fails the executions
// of the current generation that ran there, all at once.
func (s *Scheduler) taskManagerLost(e TaskManagerLost) {
	s.free = slices.DeleteFunc(s.free, func(id slots.ID) bool { return id.TaskManager == e.TaskManager })
	lost := false
	for _, a := range s.plan.Assignments {
		id := a.SubtaskID
		if st := s.execs[id]; a.Slot.TaskManager == e.TaskManager && !st.Terminal() && st != ExecCreated {
			s.execs[id] = ExecFailed
			lost = true
		}
	}
	if s.waiting {
		// Keep the count of free slots in waitErr current.
		s.place()
	}
	if lost {
		s.taskFailed(fmt.Errorf("%w: %s: %s", ErrTaskManagerLost, e.TaskManager, e.Reason), e.Now)
		s.settle()
	}
}

func (s *Scheduler) taskState(e TaskState) {
	prev, ok := s.execs[e.ID]
	if !ok || prev.Terminal() || e.Generation != s.generation {
		return
	}
	if prev == ExecCanceling && !e.State.Terminal() {
		// A late report from a subtask being cancelled: keep cancelling.
		return
	}
	s.execs[e.ID] = e.State
	if e.State == ExecFailed {
		s.laterFailure(e.Err)
	}
	if s.stages != nil && e.State.Terminal() {
		defer s.stageEnded(e.ID)
	}
	if s.stages != nil && e.State == ExecFailed && s.status == Running && !s.stopping && s.regionFailover(e.ID, e.Err, e.Now) {
		s.settle()
		return
	}
	switch e.State {
	case ExecFailed:
		s.taskFailed(e.Err, e.Now)
	case ExecCanceled:
		s.taskFailed(fmt.Errorf("%w: subtask %v", ErrTaskCanceled, e.ID), e.Now)
	}
	s.settle()
}

// laterFailure weighs a failure of the generation that already failed or
// restarts: it may be the real cause of the failure that came first.
func (s *Scheduler) laterFailure(err error) {
	switch {
	case s.status == Restarting && Unrecoverable(err) && !Unrecoverable(s.failure.Cause()):
		// The failure that started the restart was a consequence (a
		// channel released under a sender); this one is the cause, and no
		// restart fixes it.
		s.failure, s.status = NewRootCause(err, nil), Failing
	case s.status == Restarting || s.status == Failing:
		// A consumer's failure reported after the failure of a producer
		// whose channel it released is the cause (as in Flink).
		s.failure = s.failure.Later(err)
	}
}

// taskFailed handles a task's failure: the first one of a running
// generation restarts or fails the job; later ones are consequences.
func (s *Scheduler) taskFailed(cause error, now time.Time) {
	switch {
	case s.status != Running:
	case s.stopping:
		s.failure = NewRootCause(cause, failedWhileStopping)
		s.status = Failing
		s.cancelRemaining()
	default:
		s.fail(cause, now)
	}
}

// settle ends the job or asks for a restart once every task ended.
func (s *Scheduler) settle() {
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
	case Restarting:
		s.ready = append(s.ready, ScheduleRestart{Delay: s.delay, Generation: s.generation + 1, Cause: s.failure.Err()})
	}
}

// fail handles the first failure of a running generation: restart if the
// strategy allows, otherwise fail the job.
func (s *Scheduler) fail(cause error, now time.Time) {
	s.failure = NewRootCause(cause, nil)
	if Unrecoverable(cause) {
		s.status = Failing
	} else if delay, ok := s.restart.OnFailure(now); ok {
		s.status, s.delay = Restarting, delay
	} else {
		if _, none := s.restart.(NoRestart); !none {
			s.failure = NewRootCause(cause, RestartsExhausted(s.restart))
		}
		s.status = Failing
	}
	s.cancelRemaining()
}

func (s *Scheduler) cancel() {
	switch s.status {
	case Created:
		s.terminate(Canceled)
	case Running, Failing, Restarting:
		s.status = Cancelling
		s.cancelRemaining()
		if s.allTerminal() {
			s.terminate(Canceled)
		}
	}
}

func (s *Scheduler) cancelRemaining() {
	var ids []graph.SubtaskID
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
		err = s.failure.Err()
	}
	s.ready = append(s.ready, Terminated{Status: st, Err: err})
}

// failedWhileStopping wraps the failure of a subtask after the job's
// stop-with-savepoint completed.
func failedWhileStopping(cause error) error {
	return fmt.Errorf("scheduler: a subtask failed while the job stopped after its savepoint: %w", cause)
}
