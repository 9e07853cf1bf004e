package adaptive

import "github.com/weir-engine/weir/internal/scheduler"

// ending is what Failing and Canceling share: cancel what runs of a
// generation and end the job with a final status once all of it ended.
type ending struct {
	graph *ExecutionGraph
	final scheduler.JobStatus
	cause scheduler.RootCause
}

// start cancels the generation and ends the job if nothing runs.
func (e *ending) start(ctx Context, self State) State {
	ctx.Cancel(e.graph)
	return e.settle(ctx, self)
}

// report applies a subtask report and ends the job once all ended.
func (e *ending) report(ctx Context, self State, ts scheduler.TaskState) State {
	e.graph.update(ts)
	return e.settle(ctx, self)
}

func (e *ending) settle(ctx Context, self State) State {
	if e.graph.AllTerminal() {
		return newFinished(ctx, e.final, e.cause.Err())
	}
	return self
}
