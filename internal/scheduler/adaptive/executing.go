package adaptive

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
)

// ErrSlotLost is the failure of a generation that lost a slot it runs in
// (its TaskManager left).
var ErrSlotLost = errors.New("adaptive: slot lost")

// executing runs a deployed generation.
//
// A failed (or unexpectedly cancelled) subtask, a lost slot (ErrSlotLost)
// or a scheduler.GlobalFailure restarts the whole job per the restart strategy (restartOrFail). When
// every subtask finished the job is FINISHED. scheduler.Cancel moves to
// Canceling, StopWithSavepoint to StopWithSavepoint.
//
// When the slots or the bounds change, the rescaling policy
// (decideRescale) decides whether to rescale, which is a restart without
// the restart strategy at the new parallelism. With OnCheckpoint the
// rescale waits for the next completed checkpoint (it triggers one), so
// little is replayed; after FailedCheckpoints failed checkpoints it goes
// ahead without one (FLIP-461).
//
// Events: scheduler.TaskState, scheduler.GlobalFailure, scheduler.Cancel,
// StopWithSavepoint, ResourcesChanged, RequirementsChanged, Timeout
// (RescaleCheck), CheckpointCompleted, CheckpointFailed. Uses Resources,
// Timers, Generations, Checkpoints, Failures and Reports.
type executing struct {
	graph *ExecutionGraph
	// since is when the generation started executing: the cooldown and
	// the maximum delay count from it.
	since time.Time
	// recheck is the RescaleCheck in flight, due at recheckAt.
	recheck   Timeout
	recheckAt time.Time
	// pending is set while a rescale waits for a checkpoint.
	pending           bool
	reason            string
	failedCheckpoints int
}

// newExecuting enters the state with a generation just deployed at now.
func newExecuting(ctx Context, g *ExecutionGraph, now time.Time) *executing {
	x := &executing{graph: g, since: now}
	ctx.Entered(x)
	return x
}

// Name implements State.
func (*executing) Name() string { return "Executing" }

// Status implements State.
func (*executing) Status() scheduler.JobStatus { return scheduler.Running }

// Handle implements State.
func (x *executing) Handle(ctx Context, ev any) State {
	switch e := ev.(type) {
	case scheduler.TaskState:
		if cause := taskFailure(x.graph, e); cause != nil {
			return restartOrFail(ctx, x.graph, cause, e.Now)
		}
		if x.graph.AllFinished() {
			return newFinished(ctx, scheduler.Finished, nil)
		}
	case scheduler.GlobalFailure:
		return restartOrFail(ctx, x.graph, e.Err, e.Now)
	case scheduler.Cancel:
		return newCanceling(ctx, x.graph)
	case StopWithSavepoint:
		return newStopWithSavepoint(ctx, x.graph, e.Drain)
	case ResourcesChanged:
		if lost := ctx.Lost(x.graph.Plan); len(lost) > 0 {
			// The subtasks there are gone, whether or not their failure
			// was reported yet: a failure, which the restart strategy
			// paces, not a rescale.
			return restartOrFail(ctx, x.graph, fmt.Errorf("%w: %v", ErrSlotLost, lost), e.Now)
		}
		return x.considerRescale(ctx, e.Now)
	case RequirementsChanged:
		return x.considerRescale(ctx, e.Now)
	case Timeout:
		if x.recheck.fired(e) {
			x.recheck = Timeout{}
			return x.considerRescale(ctx, e.Now)
		}
	case CheckpointCompleted:
		if x.pending {
			return x.rescaleIfStillWanted(ctx, e.Now)
		}
	case CheckpointFailed:
		if x.pending {
			x.failedCheckpoints++
			if x.failedCheckpoints >= ctx.Options().Rescale.FailedCheckpoints {
				x.reason += fmt.Sprintf(" (after %d failed checkpoints)", x.failedCheckpoints)
				return x.rescaleIfStillWanted(ctx, e.Now)
			}
		}
	}
	return x
}

// considerRescale asks the rescaling policy about the current slots.
func (x *executing) considerRescale(ctx Context, now time.Time) State {
	plan, err := ctx.Plan()
	if err != nil {
		// Bounds raised above the slots held: the job runs on as it is.
		return x
	}
	d := decideRescale(ctx.Options().Rescale, x.graph.Plan.Parallelism, plan.Parallelism, x.since, now)
	if !d.rescale {
		if d.recheck.IsZero() {
			// The change went away: a rescale waiting for a checkpoint
			// is dropped.
			x.pending = false
		} else if x.recheck.Seq == 0 || !x.recheckAt.Equal(d.recheck) {
			x.recheck, x.recheckAt = ctx.ScheduleTimeout(RescaleCheck, d.recheck), d.recheck
		}
		return x
	}
	if !ctx.Options().Rescale.OnCheckpoint {
		return x.rescale(ctx, plan, d.reason, now)
	}
	x.reason = d.reason
	if !x.pending {
		x.pending, x.failedCheckpoints = true, 0
		ctx.TriggerCheckpoint("rescale: " + d.reason)
	}
	return x
}

// rescaleIfStillWanted takes the pending rescale after a checkpoint (or
// too many failed ones) if the slots still call for it.
func (x *executing) rescaleIfStillWanted(ctx Context, now time.Time) State {
	x.pending = false
	plan, err := ctx.Plan()
	if err != nil || plan.SameParallelism(x.graph.Plan) {
		return x
	}
	return x.rescale(ctx, plan, x.reason, now)
}

// rescale restarts the job, without the restart strategy, to run at the
// parallelism of plan.
func (x *executing) rescale(ctx Context, plan allocator.Plan, reason string, now time.Time) State {
	ctx.Rescaling(x.graph.Plan.Parallelism, plan.Parallelism, reason, now)
	return newRestarting(ctx, x.graph, 0, now)
}
