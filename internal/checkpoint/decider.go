package checkpoint

import "time"

// When to trigger: Flink's CheckpointRequestDecider and periodic scheduler
// in one place. After every event the coordinator asks, in this order:
//
//  1. Savepoint requests were triggered when they arrived (they ignore
//     MaxConcurrent and the min pause).
//  2. Queued checkpoint requests go first when there is a free slot
//     (MaxConcurrent); they ignore the min pause, which is for periodic
//     checkpoints, as in Flink.
//  3. End of data: if every task reached EndOfData (or finished) and no
//     checkpoint triggered after the last EndOfData is pending or
//     completed, trigger one now, in a free slot, ignoring the interval and
//     the min pause. If only some pipelined regions are in that state,
//     trigger one for them too, but only once the min pause allows. After
//     such a region's checkpoint failed, or any that the tasks were not
//     ready for (ErrNotReady), the next waits one interval, or until
//     another task reports EndOfData: the tasks may be ready then (the
//     last subtask of an operator with union list state finished).
//  4. Periodic: once the interval is due, in a free slot, when the min
//     pause since the last completion has passed.
//
// A pending stop-with-savepoint suppresses 3 and 4 (it is itself the last
// checkpoint of the tasks), and after one completed they stay off until a
// failover restarts the tasks.

// decider is the schedule state.
type decider struct {
	nextPeriodic time.Time
	queued       int  // checkpoint requests waiting for a free slot
	stopped      bool // a stop-with-savepoint completed
	// eodRetry holds rule 3 back after an end-of-data checkpoint failed:
	// without it a checkpoint the tasks are not ready for (FLIP-147's
	// union list state with some subtasks finished) was triggered again
	// at once, thousands of times a second.
	eodRetry time.Time
}

func (d *decider) start(now time.Time, interval time.Duration) {
	d.nextPeriodic = now.Add(interval)
}

func (d *decider) restart(now time.Time, interval time.Duration) {
	d.nextPeriodic = now.Add(interval)
	d.stopped = false
	d.eodRetry = time.Time{}
}

// endOfDataFailed holds end-of-data triggers back for one interval after
// one of them failed.
func (d *decider) endOfDataFailed(now time.Time, interval time.Duration) {
	d.eodRetry = now.Add(interval)
}

// endOfDataReported lets end-of-data triggers go again at once after a
// task reported EndOfData: what made the last one fail may be gone.
// Every task reports once, so this cannot loop.
func (d *decider) endOfDataReported() { d.eodRetry = time.Time{} }

// periodicDone moves the periodic schedule past now after a periodic
// trigger: one interval after the previous due time, keeping a regular
// rhythm, unless that is already past (the trigger was late, held back by
// MaxConcurrent or the min pause), then one interval from now: missed
// periods are skipped, never caught up in a burst.
func (d *decider) periodicDone(now time.Time, interval time.Duration) {
	next := d.nextPeriodic.Add(interval)
	if !next.After(now) {
		next = now.Add(interval)
	}
	d.nextPeriodic = next
}

// request handles a TriggerRequest.
func (c *Coordinator) request(kind Kind) {
	if kind.IsSavepoint() {
		if !c.trigger(kind, CauseRequest) {
			c.emit(Failed{Kind: kind, Reason: ErrNoRunningTasks})
		}
		return
	}
	switch {
	case !c.opts.Enabled:
		c.emit(Failed{Kind: kind, Reason: ErrDisabled})
	case c.tasks.running == 0:
		c.emit(Failed{Kind: kind, Reason: ErrNoRunningTasks})
	default:
		c.decider.queued++
	}
}

// trigger starts a checkpoint with the current plan. It reports false, and
// does nothing, when no task runs or the tasks are being restored.
func (c *Coordinator) trigger(kind Kind, cause Cause) bool {
	if c.restoring {
		return false
	}
	if c.opts.NoCheckpointsAfterTasksFinish && c.tasks.anyFinished() {
		return false
	}
	plan := calculatePlan(c.ix, c.tasks.finished)
	if len(plan.TasksToWaitFor) == 0 {
		return false
	}
	id := c.nextID
	c.nextID++
	p := newPending(id, kind, cause, c.now, c.opts.Timeout, c.ix, plan)
	c.pending = append(c.pending, p)
	c.emit(Trigger{ID: id, Timestamp: c.now, Kind: kind, Cause: cause, Tasks: plan.TasksToTrigger})
	return true
}

// maybeTrigger applies rules 2 to 4 above.
func (c *Coordinator) maybeTrigger() {
	if !c.started || c.restoring {
		return
	}
	for c.decider.queued > 0 && c.slotFree() {
		c.decider.queued--
		if !c.trigger(Checkpoint, CauseRequest) {
			c.emit(Failed{Kind: Checkpoint, Reason: ErrNoRunningTasks})
		}
	}
	if !c.opts.Enabled || c.decider.stopped || c.terminating() {
		return
	}
	triggered := false
	if cause, ok := c.endOfDataDue(); ok && c.slotFree() && !c.now.Before(c.decider.eodRetry) && (cause == CauseEndOfData || c.minPauseOver()) {
		triggered = c.trigger(Checkpoint, cause)
	}
	if c.now.Before(c.decider.nextPeriodic) {
		return
	}
	switch {
	case triggered:
		// The end-of-data checkpoint serves as this period's one.
		c.decider.periodicDone(c.now, c.opts.Interval)
	case c.slotFree() && c.minPauseOver():
		c.trigger(Checkpoint, CausePeriodic)
		c.decider.periodicDone(c.now, c.opts.Interval)
	}
}

// endOfDataDue reports whether an end-of-data checkpoint is wanted, and
// which: CauseEndOfData when every task is at end of data,
// CauseRegionEndOfData when only some regions are. It is not wanted when a
// checkpoint triggered after the relevant EndOfData is pending or
// completed.
func (c *Coordinator) endOfDataDue() (Cause, bool) {
	if !c.opts.FinalCheckpointOnEndOfData {
		return 0, false
	}
	floor := c.tasks.uncoveredFloor(c.completedCover)
	if floor == 0 {
		return 0, false
	}
	for _, p := range c.pending {
		if p.coversEndOfData() && p.id >= floor {
			return 0, false
		}
	}
	if c.tasks.allDone() {
		return CauseEndOfData, true
	}
	return CauseRegionEndOfData, true
}

func (c *Coordinator) slotFree() bool { return len(c.pending) < c.opts.MaxConcurrent }

// minPauseEnd is the earliest time the min pause allows the next periodic
// trigger (zero if nothing completed yet).
func (c *Coordinator) minPauseEnd() time.Time {
	if !c.anyCompleted {
		return time.Time{}
	}
	return c.lastCompletion.Add(c.opts.MinPauseBetween)
}

func (c *Coordinator) minPauseOver() bool { return !c.now.Before(c.minPauseEnd()) }

// terminating reports whether a stop-with-savepoint is pending.
func (c *Coordinator) terminating() bool {
	for _, p := range c.pending {
		if p.kind.terminates() {
			return true
		}
	}
	return false
}

// reschedule emits a ScheduleTick when the time the coordinator next needs
// a Tick changed: the earliest of the pending deadlines and, when a slot is
// free, the next periodic trigger and the end of a min pause that holds
// back a region's end-of-data checkpoint. Completions, acks and task
// reports arrive as events of their own and need no tick.
func (c *Coordinator) reschedule() {
	var at time.Time
	earliest := func(t time.Time) {
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	if c.started {
		for _, p := range c.pending {
			if !p.persisting {
				earliest(p.deadline)
			}
		}
		if c.opts.Enabled && !c.restoring && !c.decider.stopped && !c.terminating() && c.slotFree() && c.tasks.running > 0 {
			next := c.decider.nextPeriodic
			if end := c.minPauseEnd(); end.After(next) {
				next = end
			}
			earliest(next)
			if cause, ok := c.endOfDataDue(); ok {
				end := c.decider.eodRetry
				if cause == CauseRegionEndOfData && c.minPauseEnd().After(end) {
					end = c.minPauseEnd()
				}
				earliest(end)
			}
		}
	}
	if !at.Equal(c.scheduledAt) {
		c.scheduledAt = at
		c.emit(ScheduleTick{At: at})
	}
}
