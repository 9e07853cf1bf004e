package adaptive

import (
	"time"

	"github.com/weir-engine/weir/internal/scheduler"
)

// restartOrFail applies the restart strategy to a failure of generation g
// at now: every failure restarts the whole job (after the strategy's
// delay, through Restarting and WaitingForResources, so a job that lost
// slots comes back at the parallelism it can get), unless the strategy
// gives up or the cause is unrecoverable (Failing).
func restartOrFail(ctx Context, g *ExecutionGraph, cause error, now time.Time) State {
	delay, failure, restart := ctx.OnFailure(cause, now)
	if !restart {
		return newFailing(ctx, g, failure)
	}
	return newRestarting(ctx, g, delay, now)
}

// taskFailure applies a report to a running generation g and returns the
// failure it stands for (a failed or unexpectedly cancelled subtask), or
// nil when it is none or was not applied.
func taskFailure(g *ExecutionGraph, e scheduler.TaskState) error {
	if !g.update(e) {
		return nil
	}
	return failure(e)
}
