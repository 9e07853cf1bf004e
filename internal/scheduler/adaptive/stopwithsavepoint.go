package adaptive

import (
	"fmt"

	"github.com/weir-engine/weir/internal/scheduler"
)

// stopWithSavepoint takes a savepoint and ends the job with it.
//
// Entering it asks for the savepoint (TriggerSavepoint). While it is
// being taken, the job runs as in Executing: a failure restarts the job
// (the savepoint is aborted), and SavepointFailed goes back to Executing,
// the tasks going on. Once SavepointCompleted, the tasks, notified of the
// savepoint, commit and end by themselves: the job is FINISHED when all
// did, or FAILED, without a restart, if one failed meanwhile (the
// savepoint stands: a job restored from it commits what this one could
// not). scheduler.Cancel moves to Canceling.
//
// Events: SavepointCompleted, SavepointFailed, scheduler.TaskState,
// scheduler.GlobalFailure, scheduler.Cancel. Uses Checkpoints, Failures
// and Generations.
type stopWithSavepoint struct {
	graph     *ExecutionGraph
	completed bool
}

// newStopWithSavepoint asks for the savepoint of generation g.
func newStopWithSavepoint(ctx Context, g *ExecutionGraph, drain bool) State {
	s := &stopWithSavepoint{graph: g}
	ctx.Entered(s)
	ctx.TriggerSavepoint(drain)
	return s
}

// Name implements State.
func (*stopWithSavepoint) Name() string { return "StopWithSavepoint" }

// Status implements State.
func (*stopWithSavepoint) Status() scheduler.JobStatus { return scheduler.Running }

// Handle implements State.
func (s *stopWithSavepoint) Handle(ctx Context, ev any) State {
	switch e := ev.(type) {
	case SavepointCompleted:
		s.completed = true
		return s.settle(ctx)
	case SavepointFailed:
		if !s.completed {
			return newExecuting(ctx, s.graph, e.Now)
		}
	case scheduler.TaskState:
		cause := taskFailure(s.graph, e)
		switch {
		case cause != nil && s.completed:
			return newFailing(ctx, s.graph, scheduler.NewRootCause(cause, failedWhileStopping))
		case cause != nil:
			return restartOrFail(ctx, s.graph, cause, e.Now)
		}
		return s.settle(ctx)
	case scheduler.GlobalFailure:
		if !s.completed {
			return restartOrFail(ctx, s.graph, e.Err, e.Now)
		}
	case scheduler.Cancel:
		return newCanceling(ctx, s.graph)
	}
	return s
}

// settle ends the job once every subtask finished: after the savepoint,
// or on their own before it.
func (s *stopWithSavepoint) settle(ctx Context) State {
	if s.graph.AllFinished() {
		return newFinished(ctx, scheduler.Finished, nil)
	}
	return s
}

// failedWhileStopping wraps the failure of a subtask after the job's
// savepoint completed.
func failedWhileStopping(cause error) error {
	return fmt.Errorf("adaptive: a subtask failed while the job stopped after its savepoint: %w", cause)
}
