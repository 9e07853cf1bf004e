package adaptive

import (
	"time"

	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
)

// Actions the scheduler hands back through Ready, besides the ones it
// shares with the default scheduler: scheduler.Deploy (submit a created
// generation's subtasks; its plan was reserved), scheduler.CancelTasks
// and scheduler.Terminated.
type (
	// CreateExecutionGraph asks the JobMaster to prepare a new generation
	// at the plan's parallelism: read the latest checkpoint (or the
	// savepoint, for the first) and redistribute its state through key
	// groups. It answers with ExecutionGraphCreated; a later
	// CreateExecutionGraph supersedes it.
	CreateExecutionGraph struct {
		Generation int
		Plan       allocator.Plan
	}

	// ScheduleTimeout asks for Timeout to be stepped back at At.
	ScheduleTimeout struct {
		Timeout Timeout
		At      time.Time
	}

	// TriggerCheckpoint asks the checkpoint coordinator for a checkpoint
	// now (a rescale waits for it).
	TriggerCheckpoint struct{ Reason string }

	// TriggerSavepoint asks for the stop-with-savepoint's savepoint.
	TriggerSavepoint struct{ Drain bool }

	// Rejected answers a request the current state cannot take (a
	// stop-with-savepoint outside Executing, bounds that do not fit).
	Rejected struct {
		Request any
		Err     error
	}

	// Transitioned reports a change of state, for logs and REST.
	Transitioned struct {
		From, To string
		Now      time.Time
	}

	// Rescaling reports a decision to rescale; the generation that runs
	// at the new parallelism follows through Restarting.
	Rescaling struct {
		From, To map[int]int
		Reason   string
		Now      time.Time
	}
)
