package adaptive

import "github.com/weir-engine/weir/internal/scheduler"

// creatingExecutionGraph waits for the JobMaster to prepare the next
// generation (read what it restores from, at the plan's parallelism).
//
// When the graph is created it commits the plan (Reserve) and deploys the
// generation, moving to Executing; if a slot of the plan left meanwhile
// it goes back to WaitingForResources (immediate: the slots were
// sufficient a moment ago). If the creation failed, the restart strategy
// decides between Restarting and Finished (FAILED); an unrecoverable
// failure (an unreadable savepoint) fails the job at once.
//
// Events: ExecutionGraphCreated, scheduler.Cancel. Uses Resources,
// Generations and Failures.
type creatingExecutionGraph struct {
	graph *ExecutionGraph
}

// newCreatingExecutionGraph plans the generation over the current slots,
// which the caller found sufficient, and asks for its graph.
func newCreatingExecutionGraph(ctx Context) State {
	c := &creatingExecutionGraph{}
	ctx.Entered(c)
	plan, err := ctx.Plan()
	if err != nil {
		// Callers checked; a plan that fails here is a bug in them.
		return newFinished(ctx, scheduler.Failed, err)
	}
	c.graph = ctx.CreateExecutionGraph(plan)
	return c
}

// Name implements State.
func (*creatingExecutionGraph) Name() string { return "CreatingExecutionGraph" }

// Status implements State.
func (*creatingExecutionGraph) Status() scheduler.JobStatus { return scheduler.Created }

// Handle implements State.
func (c *creatingExecutionGraph) Handle(ctx Context, ev any) State {
	switch e := ev.(type) {
	case ExecutionGraphCreated:
		if e.Generation != c.graph.Generation {
			return c
		}
		if e.Err != nil {
			return restartOrFail(ctx, c.graph, e.Err, e.Now)
		}
		if err := ctx.Reserve(c.graph.Plan); err != nil {
			return newWaitingForResources(ctx, e.Now, true)
		}
		ctx.Deploy(c.graph)
		return newExecuting(ctx, c.graph, e.Now)
	case scheduler.Cancel:
		return newFinished(ctx, scheduler.Canceled, nil)
	}
	return c
}
