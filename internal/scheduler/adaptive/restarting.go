package adaptive

import (
	"time"

	"github.com/weir-engine/weir/internal/scheduler"
)

// restarting cancels a generation and, once every subtask of it ended and
// the delay passed (the restart strategy's backoff; none for a rescale),
// goes back to WaitingForResources, which starts the next generation at
// once with whatever slots suffice.
//
// Further failures of the cancelled generation are consequences of the
// first and are absorbed, except an unrecoverable one, which is the real
// cause: the job moves to Failing; and when the first was itself a
// consequence (a producer whose channel the failed consumer released), the
// first real failure becomes the restart's cause (Failures.LaterFailure). scheduler.Cancel moves to Canceling.
//
// Events: scheduler.TaskState, Timeout (Backoff), scheduler.Cancel. Uses
// Generations and Timers.
type restarting struct {
	graph   *ExecutionGraph
	delay   time.Duration
	backoff Timeout
}

// newRestarting cancels generation g at now and restarts after delay.
func newRestarting(ctx Context, g *ExecutionGraph, delay time.Duration, now time.Time) State {
	r := &restarting{graph: g, delay: delay}
	ctx.Entered(r)
	ctx.Cancel(g)
	return r.settle(ctx, now)
}

// Name implements State.
func (*restarting) Name() string { return "Restarting" }

// Status implements State.
func (*restarting) Status() scheduler.JobStatus { return scheduler.Restarting }

// Handle implements State.
func (r *restarting) Handle(ctx Context, ev any) State {
	switch e := ev.(type) {
	case scheduler.TaskState:
		if r.graph.update(e) && e.State == scheduler.ExecFailed {
			if scheduler.Unrecoverable(e.Err) {
				return newFailing(ctx, r.graph, scheduler.NewRootCause(e.Err, nil))
			}
			ctx.LaterFailure(e.Err)
		}
		return r.settle(ctx, e.Now)
	case Timeout:
		if r.backoff.fired(e) {
			return newWaitingForResources(ctx, e.Now, true)
		}
	case scheduler.Cancel:
		return newCanceling(ctx, r.graph)
	}
	return r
}

// settle starts the delay once every subtask ended (at now).
func (r *restarting) settle(ctx Context, now time.Time) State {
	switch {
	case !r.graph.AllTerminal() || r.backoff.Seq != 0:
		return r
	case r.delay <= 0:
		return newWaitingForResources(ctx, now, true)
	}
	r.backoff = ctx.ScheduleTimeout(Backoff, now.Add(r.delay))
	return r
}
