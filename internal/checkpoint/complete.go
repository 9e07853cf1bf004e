package checkpoint

import (
	"errors"
	"fmt"
)

// How a pending checkpoint ends: complete or fail, with what follows from
// either (subsumption, retention, failure counting).

// complete ends p successfully: the caller persisted it at location.
//
// Actions, in order: Completed; NotifyComplete to the tasks that were
// running at the trigger and have not finished since; for a checkpoint (not
// a savepoint), NotifyAborted and Failed for each pending checkpoint with a
// lower id (it can no longer be the latest, Flink's subsumption of pending
// checkpoints; savepoints are never subsumed), then Subsumed for completed
// checkpoints beyond Options.Retained. Savepoints are not retained here:
// they belong to the user.
func (c *Coordinator) complete(p *pending, location string) {
	c.remove(p)
	c.lastCompletion, c.anyCompleted = c.now, true
	c.failures.succeeded(p.id)
	if p.coversEndOfData() {
		c.completedCover = max(c.completedCover, p.id)
	}
	c.emit(Completed{ID: p.id, Location: location, Kind: p.kind})
	if tasks := c.stillRunning(p.plan.TasksToWaitFor); len(tasks) > 0 {
		c.emit(NotifyComplete{ID: p.id, Tasks: tasks})
	}
	if p.kind.terminates() {
		// The tasks stop after a stop-with-savepoint: no more periodic
		// checkpoints until a failover restarts them.
		c.decider.stopped = true
	}
	if p.kind != Checkpoint {
		return
	}
	var older []*pending
	for _, q := range c.pending {
		if q.id < p.id && q.kind == Checkpoint {
			older = append(older, q)
		}
	}
	for _, q := range older {
		c.fail(q, fmt.Errorf("%w: checkpoint %d completed", ErrSubsumed, p.id), true)
	}
	c.retained = append(c.retained, p.id)
	if n := len(c.retained) - c.opts.Retained; n > 0 {
		ids := append([]int64(nil), c.retained[:n]...)
		c.retained = c.retained[n:]
		c.emit(Subsumed{IDs: ids})
	}
}

// fail ends p with reason: NotifyAborted (if notify and some task of it
// still runs), Failed, and JobFailure when this failure exceeds the
// tolerable ones.
func (c *Coordinator) fail(p *pending, reason error, notify bool) {
	c.remove(p)
	if p.persisting && !errors.Is(reason, ErrPersistFailed) {
		c.orphans[p.id] = struct{}{}
	}
	if notify {
		if tasks := c.stillRunning(p.plan.TasksToWaitFor); len(tasks) > 0 {
			c.emit(NotifyAborted{ID: p.id, Tasks: tasks, Reason: reason})
		}
	}
	c.emit(Failed{ID: p.id, Kind: p.kind, Reason: reason})
	if p.cause == CauseRegionEndOfData || (p.cause == CauseEndOfData && errors.Is(reason, ErrNotReady)) {
		// Not at once again: the other regions run on, or the tasks are
		// not ready (a final checkpoint that failed otherwise is retried
		// at once, to let the job end).
		c.decider.endOfDataFailed(c.now, c.opts.Interval)
	}
	if c.failures.failed(p.id, p.kind, reason) {
		c.emit(JobFailure{Reason: fmt.Errorf("%w (tolerated %d); the last: %w", ErrTolerableExceeded, c.opts.TolerableFailures, reason)})
	}
}
