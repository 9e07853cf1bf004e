package adaptive

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/scheduler"
)

// ErrNotEnoughResources fails a job whose minimum slots did not arrive
// within the resource wait timeout.
var ErrNotEnoughResources = errors.New("adaptive: not enough resources")

// waitingForResources waits for the slots to run the job.
//
// It moves to CreatingExecutionGraph as soon as the slots run every vertex
// at its upper bound (desired), or, with enough slots for the lower bounds
// (sufficient), once they stopped changing for the resource stabilization
// timeout. After a restart (immediate) sufficient slots are enough at
// once: a job that lost a TaskManager restarts at the lower parallelism
// rather than waiting for it. If the resource wait timeout passes it runs
// with sufficient slots or fails the job with ErrNotEnoughResources.
// Reactive mode has neither timeout: it starts with the first sufficient
// slots and waits forever for them.
//
// Events: ResourcesChanged, RequirementsChanged, Timeout
// (ResourceWait, Stabilization), scheduler.Cancel. Uses Resources and
// Timers.
type waitingForResources struct {
	immediate bool
	// deadline is when the slots will have been stable long enough; zero
	// while they are not sufficient.
	deadline    time.Time
	stabilizing Timeout
	wait        Timeout
}

// newWaitingForResources enters the state at now, and leaves it at once if
// the slots are already there.
func newWaitingForResources(ctx Context, now time.Time, immediate bool) State {
	w := &waitingForResources{immediate: immediate}
	ctx.Entered(w)
	if d := ctx.Options().ResourceWaitTimeout; d > 0 {
		w.wait = ctx.ScheduleTimeout(ResourceWait, now.Add(d))
	}
	return w.check(ctx, now, true)
}

// Name implements State.
func (*waitingForResources) Name() string { return "WaitingForResources" }

// Status implements State.
func (*waitingForResources) Status() scheduler.JobStatus { return scheduler.Created }

// Handle implements State.
func (w *waitingForResources) Handle(ctx Context, ev any) State {
	switch e := ev.(type) {
	case ResourcesChanged:
		return w.check(ctx, e.Now, true)
	case RequirementsChanged:
		return w.check(ctx, e.Now, true)
	case Timeout:
		switch {
		case w.stabilizing.fired(e):
			w.stabilizing = Timeout{}
			return w.check(ctx, e.Now, false)
		case w.wait.fired(e):
			if _, err := ctx.Plan(); err != nil {
				return newFinished(ctx, scheduler.Failed, fmt.Errorf("%w after %v: %w", ErrNotEnoughResources, ctx.Options().ResourceWaitTimeout, err))
			}
			return newCreatingExecutionGraph(ctx)
		}
	case scheduler.Cancel:
		return newFinished(ctx, scheduler.Canceled, nil)
	}
	return w
}

// check moves on if the slots allow; changed says the slots (or bounds)
// just changed, which restarts the stabilization window.
func (w *waitingForResources) check(ctx Context, now time.Time, changed bool) State {
	if ctx.HasDesiredResources() {
		return newCreatingExecutionGraph(ctx)
	}
	if _, err := ctx.Plan(); err != nil {
		w.deadline = time.Time{}
		return w
	}
	stab := ctx.Options().ResourceStabilizationTimeout
	if w.immediate || stab < 0 {
		return newCreatingExecutionGraph(ctx)
	}
	if changed || w.deadline.IsZero() {
		w.deadline = now.Add(stab)
	}
	if !now.Before(w.deadline) {
		return newCreatingExecutionGraph(ctx)
	}
	if w.stabilizing.Seq == 0 {
		// One timer in flight: when it fires before a deadline that
		// moved, check schedules the next.
		w.stabilizing = ctx.ScheduleTimeout(Stabilization, w.deadline)
	}
	return w
}
