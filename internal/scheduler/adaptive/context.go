package adaptive

import (
	"time"

	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// State is one state of the scheduler. Handle applies an event and returns
// the next state (the same one when it stays); it never blocks and does
// nothing but call its Context, so a transition is a pure function of the
// state, the event and what the Context answers.
type State interface {
	// Name is the state's name, as Flink's: "WaitingForResources".
	Name() string
	// Status is the job status shown while in the state.
	Status() scheduler.JobStatus
	// Handle applies one event.
	Handle(ctx Context, ev any) State
}

// Context is what a state may ask the scheduler or ask it to do. It is
// made of small parts; each state's doc says which it uses.
type Context interface {
	Resources
	Timers
	Generations
	Checkpoints
	Failures
	Reports
	// Options are the scheduler's options, with defaults applied.
	Options() Options
}

// Resources is the job's view of its slots.
type Resources interface {
	// Plan runs the SlotAllocator over all the job's slots (those the
	// current generation uses included) at the current bounds; it fails
	// with allocator.ErrNotEnoughSlots below the minimum.
	Plan() (allocator.Plan, error)
	// HasDesiredResources reports whether the slots let every vertex run
	// at its upper bound.
	HasDesiredResources() bool
	// Reserve commits a plan for a new generation; it fails when a slot
	// of the plan left the pool.
	Reserve(allocator.Plan) error
	// Lost returns the slots of a plan that left the pool.
	Lost(allocator.Plan) []slots.ID
}

// Timers schedule timeouts.
type Timers interface {
	// ScheduleTimeout asks for a Timeout of kind at time at and returns
	// it; a state keeps the one it waits for and ignores the others.
	ScheduleTimeout(kind TimeoutKind, at time.Time) Timeout
}

// Generations create, deploy and cancel execution graphs.
type Generations interface {
	// CreateExecutionGraph starts the next generation, at the plan's
	// parallelism; the JobMaster answers with ExecutionGraphCreated.
	CreateExecutionGraph(allocator.Plan) *ExecutionGraph
	// Deploy submits a created generation's subtasks.
	Deploy(*ExecutionGraph)
	// Cancel cancels every subtask of g that has not ended.
	Cancel(g *ExecutionGraph)
}

// Checkpoints trigger checkpoints and savepoints.
type Checkpoints interface {
	// TriggerCheckpoint asks for a checkpoint now.
	TriggerCheckpoint(reason string)
	// TriggerSavepoint asks for the stop-with-savepoint's savepoint.
	TriggerSavepoint(drain bool)
}

// Failures apply the restart strategy.
type Failures interface {
	// OnFailure decides about a failure at now: restart after delay
	// (restart true), or fail the job with failure (the cause, wrapped
	// when the strategy gave up). An unrecoverable cause
	// (scheduler.Unrecoverable) never restarts.
	OnFailure(cause error, now time.Time) (delay time.Duration, failure scheduler.RootCause, restart bool)
	// LaterFailure weighs a failure reported while the job restarts: when
	// the failure that started the restart was a consequence (a producer
	// whose channel the failed consumer released), the first real one is
	// the restart's cause.
	LaterFailure(err error)
}

// Reports say what happened, for logs, REST and the JobMaster.
type Reports interface {
	// Entered records that the scheduler entered s.
	Entered(s State)
	// Rescaling records a decision to rescale.
	Rescaling(from, to map[int]int, reason string, now time.Time)
	// Terminate reports the job's final status.
	Terminate(status scheduler.JobStatus, err error)
}
