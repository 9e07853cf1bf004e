package adaptive

import (
	"time"

	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// Events the JobMaster steps the scheduler with, besides the ones it
// shares with the default scheduler: scheduler.TaskState (a subtask's new
// state), scheduler.Cancel and scheduler.GlobalFailure (e.g. too many
// failed checkpoints). Every event that a decision depends on the time of
// carries Now; the scheduler never reads a clock.
type (
	// Start asks to schedule the job: Created moves to
	// WaitingForResources.
	Start struct{ Now time.Time }

	// ResourcesChanged gives the job's slot pool after a change (a
	// TaskManager offered slots, or one was lost) and the key groups the
	// TaskManagers hold locally.
	ResourcesChanged struct {
		Slots []slots.ID
		Local []allocator.Local
		Now   time.Time
	}

	// RequirementsChanged sets new parallelism bounds for some vertices
	// at runtime (FLIP-291's PUT /jobs/:jobid/resource-requirements). A
	// request that does not fit a vertex's max parallelism is rejected as
	// a whole.
	RequirementsChanged struct {
		Bounds map[int]Bounds
		Now    time.Time
	}

	// ExecutionGraphCreated answers a CreateExecutionGraph: the JobMaster
	// read what the generation restores from at the plan's parallelism
	// (Err when it could not).
	ExecutionGraphCreated struct {
		Generation int
		Err        error
		Now        time.Time
	}

	// StopWithSavepoint asks to take a savepoint and end the job with it
	// (Drain: sources end their input first).
	StopWithSavepoint struct {
		Drain bool
		Now   time.Time
	}

	// SavepointCompleted says the stop-with-savepoint's savepoint is
	// written; the tasks end by themselves.
	SavepointCompleted struct{ Now time.Time }

	// SavepointFailed says the stop-with-savepoint's savepoint was
	// aborted; the tasks go on.
	SavepointFailed struct {
		Err error
		Now time.Time
	}

	// CheckpointCompleted reports any completed checkpoint: a pending
	// rescale is taken right after one (FLIP-461).
	CheckpointCompleted struct {
		ID  int64
		Now time.Time
	}

	// CheckpointFailed reports a failed or declined checkpoint.
	CheckpointFailed struct {
		Err error
		Now time.Time
	}

	// Timeout is a timeout the scheduler asked for with ScheduleTimeout,
	// delivered back once its time came; Now is when it fired.
	Timeout struct {
		Kind TimeoutKind
		Seq  uint64
		Now  time.Time
	}
)

// fired reports whether e is the firing of t, a timeout a state
// scheduled (the zero Timeout matches nothing).
func (t Timeout) fired(e Timeout) bool { return t.Seq != 0 && t.Seq == e.Seq && t.Kind == e.Kind }

// Bounds are a vertex's parallelism bounds (0 for Max: its max
// parallelism).
type Bounds struct{ Min, Max int }

// TimeoutKind names what a timeout is for.
type TimeoutKind string

// Timeout kinds.
const (
	// ResourceWait ends WaitingForResources without the minimum slots.
	ResourceWait TimeoutKind = "resource-wait"
	// Stabilization ends WaitingForResources with sufficient, not
	// desired, slots.
	Stabilization TimeoutKind = "stabilization"
	// Backoff is the restart strategy's delay in Restarting.
	Backoff TimeoutKind = "backoff"
	// RescaleCheck re-evaluates a pending rescale in Executing (cooldown
	// over, or maximum delay reached).
	RescaleCheck TimeoutKind = "rescale-check"
)
