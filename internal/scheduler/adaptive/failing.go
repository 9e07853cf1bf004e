package adaptive

import "github.com/weir-engine/weir/internal/scheduler"

// failing cancels a generation after a failure that is not restarted and
// ends the job FAILED with that failure once every subtask ended.
// Later failures do not replace the cause, except that the first real
// failure replaces a cause that was its consequence (a producer whose
// channel the failed consumer released; see scheduler.RootCause).
// scheduler.Cancel moves to Canceling.
//
// Events: scheduler.TaskState, scheduler.Cancel. Uses Generations.
type failing struct{ ending }

// newFailing fails the job with cause.
func newFailing(ctx Context, g *ExecutionGraph, cause scheduler.RootCause) State {
	f := &failing{ending{graph: g, final: scheduler.Failed, cause: cause}}
	ctx.Entered(f)
	return f.start(ctx, f)
}

// Name implements State.
func (*failing) Name() string { return "Failing" }

// Status implements State.
func (*failing) Status() scheduler.JobStatus { return scheduler.Failing }

// Handle implements State.
func (f *failing) Handle(ctx Context, ev any) State {
	switch e := ev.(type) {
	case scheduler.TaskState:
		if f.graph.update(e) && e.State == scheduler.ExecFailed {
			f.cause = f.cause.Later(e.Err)
		}
		return f.settle(ctx, f)
	case scheduler.Cancel:
		return newCanceling(ctx, f.graph)
	}
	return f
}
