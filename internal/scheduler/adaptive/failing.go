package adaptive

import "github.com/weir-engine/weir/internal/scheduler"

// failing cancels a generation after a failure that is not restarted and
// ends the job FAILED with that failure once every subtask ended.
// Later failures do not replace the cause. scheduler.Cancel moves to
// Canceling.
//
// Events: scheduler.TaskState, scheduler.Cancel. Uses Generations.
type failing struct{ ending }

// newFailing fails the job with err.
func newFailing(ctx Context, g *ExecutionGraph, err error) State {
	f := &failing{ending{graph: g, final: scheduler.Failed, err: err}}
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
		return f.report(ctx, f, e)
	case scheduler.Cancel:
		return newCanceling(ctx, f.graph)
	}
	return f
}
