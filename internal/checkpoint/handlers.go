package checkpoint

import (
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/graph"
)

// The event handlers that move pending checkpoints forward or end them.

func (c *Coordinator) onAck(ev Ack) {
	p := c.find(ev.ID)
	if p == nil || p.persisting {
		return // late, or for a checkpoint we never triggered
	}
	f, _ := c.ix.flat(ev.Task)
	if !p.ack(f, ev.Task, ev.State) || !p.fullyAcked() {
		return
	}
	p.persisting = true
	c.emit(p.persist())
}

func (c *Coordinator) onDecline(ev Decline) {
	p := c.find(ev.ID)
	if p == nil || p.persisting {
		return
	}
	f, _ := c.ix.flat(ev.Task)
	if _, acked := p.states[ev.Task]; !p.awaits(f) && !acked {
		return // not a task of this checkpoint (e.g. finished before it)
	}
	reason := fmt.Errorf("%w: task %v", ErrDeclined, ev.Task)
	if ev.Reason != nil {
		reason = fmt.Errorf("%w: task %v: %w", ErrDeclined, ev.Task, ev.Reason)
	}
	c.fail(p, reason, true)
}

// onFinished records a finished task. A pending checkpoint that waits for
// the task's ack fails at once instead of at its timeout (FLIP-147: detect
// the trigger failure as early as possible), unless the task had emitted
// EndOfData before the checkpoint was triggered: such a task takes every
// checkpoint triggered while it waits for its final one, so its ack is
// coming (the finish report may overtake it). Checkpoints the task already
// acknowledged, or does not take part in, are not affected: finishing does
// not cancel pending checkpoints.
func (c *Coordinator) onFinished(task graph.SubtaskID, lastSnapshot int64) {
	f, _ := c.ix.flat(task)
	if !c.tasks.finish(f) {
		return
	}
	var doomed, orphaned []*pending
	for _, p := range c.pending {
		if p.persisting || !p.awaits(f) || p.id <= lastSnapshot {
			continue // its acknowledgement is on its way
		}
		if !c.tasks.endOfDataBefore(f, p.id) {
			doomed = append(doomed, p)
			continue
		}
		// The task had reached the end of its data before this checkpoint
		// was triggered, and it finished without acknowledging it: it left
		// after an earlier checkpoint, its final one, completed. Its
		// operators had finished, so the state it would have acknowledged
		// is the final one; record it as finished in this checkpoint
		// rather than wait for an ack that will never come.
		p.finishedWithoutAck(c.ix, f, task)
		if p.fullyAcked() {
			p.persisting = true
			c.emit(p.persist())
			continue
		}
		// It sent no barrier of p either: its consumers may now wait for
		// p with no producer left to bring it.
		orphaned = append(orphaned, p)
	}
	for _, p := range doomed {
		c.fail(p, fmt.Errorf("%w: task %v finished without acknowledging checkpoint %d", ErrTaskFinished, task, p.id), true)
	}
	if len(orphaned) > 0 {
		c.retrigger(orphaned)
	}
}

// retrigger sends each checkpoint in ps to the tasks that became its roots
// since it was triggered (every producer they read finished without taking
// it), so that they take it from the trigger RPC: no barrier of it will
// reach them, and it would stay pending, holding back the final
// checkpoint, until its timeout.
func (c *Coordinator) retrigger(ps []*pending) {
	plan := calculatePlan(c.ix, c.tasks.finished)
	for _, p := range ps {
		if tasks := p.newRoots(c.ix, plan); len(tasks) > 0 {
			c.emit(Trigger{ID: p.id, Timestamp: p.timestamp, Kind: p.kind, Cause: p.cause, Tasks: tasks, Again: true})
		}
	}
}

// onRestart aborts every pending checkpoint, without NotifyAborted (the
// attempts it would reach are gone), and starts the task marks and the
// periodic schedule over.
func (c *Coordinator) onRestart(ev TasksRestarted) {
	c.abortAll()
	c.restoring = false
	if ev.Topology != nil {
		// check compiled it already: it is valid.
		c.ix, _ = compile(ev.Topology)
		c.tasks = newTaskTable(c.ix)
	}
	finished := make([]int, 0, len(ev.Finished))
	for _, t := range ev.Finished {
		f, _ := c.ix.flat(t)
		finished = append(finished, f)
	}
	c.tasks.reset(c.ix.total, finished)
	c.completedCover = 0
	c.decider.restart(c.now, c.opts.Interval)
}

// onRestoring aborts every pending checkpoint, as onRestart does, and
// holds triggers back until TasksRestarted.
func (c *Coordinator) onRestoring() {
	c.abortAll()
	c.restoring = true
}

// abortAll fails every pending checkpoint for a failover, without
// NotifyAborted (the attempts it would reach are gone). One being
// persisted becomes an orphan: its metadata is discarded once written.
func (c *Coordinator) abortAll() {
	for len(c.pending) > 0 {
		c.fail(c.pending[0], ErrFailover, false)
	}
}

func (c *Coordinator) onPersisted(ev Persisted) {
	p := c.find(ev.ID)
	if p == nil {
		if _, ok := c.orphans[ev.ID]; ok {
			delete(c.orphans, ev.ID)
			if ev.Err == nil {
				c.emit(Discard{ID: ev.ID, Location: ev.Location})
			}
		}
		return
	}
	if ev.Err != nil {
		if errors.Is(ev.Err, ErrNotReady) {
			c.fail(p, ev.Err, true)
			return
		}
		c.fail(p, fmt.Errorf("%w: %w", ErrPersistFailed, ev.Err), true)
		return
	}
	c.complete(p, ev.Location)
}

// expire fails the checkpoints whose timeout passed. A checkpoint that is
// being persisted no longer expires: every task acknowledged.
func (c *Coordinator) expire() {
	if !c.started {
		return
	}
	var expired []*pending
	for _, p := range c.pending {
		if !p.persisting && !c.now.Before(p.deadline) {
			expired = append(expired, p)
		}
	}
	for _, p := range expired {
		c.fail(p, fmt.Errorf("%w: checkpoint %d after %v", ErrExpired, p.id, c.opts.Timeout), true)
	}
}
