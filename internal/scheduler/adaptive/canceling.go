package adaptive

import "github.com/weir-engine/weir/internal/scheduler"

// canceling cancels a generation at the user's request and ends the job
// CANCELED once every subtask ended; failures meanwhile change nothing.
//
// Events: scheduler.TaskState. Uses Generations.
type canceling struct{ ending }

// newCanceling cancels the job.
func newCanceling(ctx Context, g *ExecutionGraph) State {
	c := &canceling{ending{graph: g, final: scheduler.Canceled}}
	ctx.Entered(c)
	return c.start(ctx, c)
}

// Name implements State.
func (*canceling) Name() string { return "Canceling" }

// Status implements State.
func (*canceling) Status() scheduler.JobStatus { return scheduler.Cancelling }

// Handle implements State.
func (c *canceling) Handle(ctx Context, ev any) State {
	if e, ok := ev.(scheduler.TaskState); ok {
		return c.report(ctx, c, e)
	}
	return c
}
