package task

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/barrier"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// Checkpointing in a task. A source task is triggered by the coordinator
// (TriggerCheckpoint, through the mailbox); other tasks learn of a
// checkpoint from the barriers in their input, which the pure barrier
// handler aligns (or not). At the snapshot the task asks every operator for
// its state, sends the barrier downstream, and hands the state to the
// Responder, which writes it to storage and acknowledges it, off the task's
// goroutine. Completion and abort notifications come back through the
// mailbox.
//
// FLIP-147: after its operators finished, a task waits until a checkpoint
// it took part in after finishing has completed, so that two-phase-commit
// sinks commit their last data; only then does it close. Every task waits,
// not only those with commit logic: a task that left early could not
// acknowledge the final checkpoint it was expected in.
//
// Stop-with-savepoint is synchronous, as in Flink: without drain, a task
// that took the savepoint's snapshot reads and emits nothing more (sources
// stop polling, timers are held back) until the savepoint completes; then
// its operators are notified (two-phase-commit sinks commit the savepoint's
// data), closed without finishing, and the task ends. Should the savepoint
// be aborted, the task goes on as if nothing happened. With drain, the
// savepoint is the task's final checkpoint, which it always waits for.

// Snapshot is the state of a task at one checkpoint.
type Snapshot struct {
	CheckpointID int64
	// Operators holds the snapshot of each stateful operator by uid.
	Operators map[string]*op.Snapshot
	// Finished is set when the task took the snapshot after its operators
	// finished (the final checkpoint of a bounded task).
	Finished bool
	// ChannelState holds, for an unaligned checkpoint, the buffers received
	// on each persisted input channel before its barrier.
	ChannelState map[int][][]byte
}

// Release releases the keyed snapshots of every operator. Whoever ends up
// holding a Snapshot (the responder once it wrote it, the task when it
// drops one) calls it once.
func (s *Snapshot) Release() {
	for _, o := range s.Operators {
		if o != nil && o.Keyed != nil {
			o.Keyed.Release()
		}
	}
}

// Responder carries a task's checkpoint messages to the coordinator. Its
// methods are called on the task's goroutine and must not block.
type Responder interface {
	Acknowledge(s *Snapshot)
	Decline(checkpointID int64, err error)
	// EndOfData reports that the task finished its operators and sent
	// EndOfData downstream: it is now waiting for its final checkpoint.
	EndOfData()
}

// TriggerCheckpoint starts checkpoint b on a task triggered by the
// coordinator (a source, or a task whose inputs all finished). It returns
// false when the task has ended.
func (t *Task) TriggerCheckpoint(b network.CheckpointBarrier) bool {
	return t.mail.Put(func() error {
		if t.source != nil && b.Drain && !t.finishedOps {
			// Stop-with-savepoint --drain: end the input now; Run takes
			// the snapshot once the operators finished and EndOfData went
			// downstream.
			t.drain = &b
			if !t.sourceEnded {
				t.sourceEnded = true
				return t.chain[0].emitWatermark(op.MaxWatermark)
			}
			return nil
		}
		if t.source != nil {
			return t.snapshot(b.ID, b.Timestamp, b, nil)
		}
		t.barriers.OnTrigger(toHandlerBarrier(b), t.cfg.Clock.Now())
		return t.barrierActions()
	})
}

// NotifyCheckpointComplete tells the operators that checkpoint id
// completed.
func (t *Task) NotifyCheckpointComplete(id int64) bool {
	return t.mail.Put(func() error {
		for _, c := range t.chain {
			if l, ok := c.inst.(op.CheckpointListener); ok && c.opened {
				if err := l.NotifyCheckpointComplete(id); err != nil {
					return c.attr(t)(err)
				}
			}
		}
		if t.finalAfter > 0 && id >= t.finalAfter {
			t.finalDone = true
		}
		if t.stopID != 0 && id >= t.stopID {
			t.stopped = true
		}
		return nil
	})
}

// NotifyCheckpointAborted tells the operators that checkpoint id was
// aborted.
func (t *Task) NotifyCheckpointAborted(id int64) bool {
	return t.mail.Put(func() error {
		for _, c := range t.chain {
			if l, ok := c.inst.(op.CheckpointListener); ok && c.opened {
				if err := l.NotifyCheckpointAborted(id); err != nil {
					return c.attr(t)(err)
				}
			}
		}
		if t.stopID != 0 && id == t.stopID {
			// The stop-with-savepoint failed: the job goes on.
			t.stopID = 0
			return t.timers.resume()
		}
		return nil
	})
}

func toHandlerBarrier(b network.CheckpointBarrier) barrier.Barrier {
	return barrier.Barrier{ID: b.ID, Timestamp: b.Timestamp, Unaligned: b.Unaligned, AlignedTimeout: time.Duration(b.AlignedTimeout) * time.Millisecond}
}

// onBarrier feeds an in-band barrier to the handler.
func (t *Task) onBarrier(ch int, b network.CheckpointBarrier) error {
	t.lastBarrier = b
	t.barriers.OnBarrier(ch, toHandlerBarrier(b), t.cfg.Clock.Now())
	return t.barrierActions()
}

// barrierActions performs what the barrier handler decided, in order.
func (t *Task) barrierActions() error {
	for _, a := range t.barriers.Ready() {
		switch a := a.(type) {
		case barrier.BlockChannel:
			t.gate.Block(a.Channel)
		case barrier.UnblockAll:
			for i := range t.layout {
				t.gate.Unblock(i)
			}
		case barrier.TriggerSnapshot:
			b := t.lastBarrier
			b.ID, b.Timestamp, b.Unaligned = a.ID, a.Timestamp, a.Unaligned
			if err := t.snapshot(a.ID, a.Timestamp, b, a.PersistChannels); err != nil {
				return err
			}
		case barrier.StartPersisting:
			// Buffers are recorded as they are polled, see recordChannelState.
		case barrier.StopPersisting:
			if err := t.channelStateDone(a.ID, a.Channel); err != nil {
				return err
			}
		case barrier.AbortCheckpoint:
			if t.unaligned != nil {
				t.unaligned.snap.Release()
				t.unaligned = nil
			}
			t.desc.Checkpoints.Decline(a.ID, fmt.Errorf("checkpoint %d aborted in %s: %s", a.ID, t.Name(), a.Reason))
		case barrier.ForwardCancel:
			if err := t.broadcast(network.CancelCheckpointMarker{ID: a.ID}); err != nil {
				return err
			}
		case barrier.ScheduleTick:
			sched := timers{clock: t.cfg.Clock, mail: t.mail, attr: func(err error) error { return err }, set: &t.timers}
			sched.Schedule(a.At, func() error {
				t.barriers.OnTick(t.cfg.Clock.Now())
				return t.barrierActions()
			})
		}
	}
	return nil
}

// snapshot takes checkpoint id: operator state first, then the barrier goes
// downstream, then the state is handed over for writing. persist lists the
// input channels whose in-flight data belongs to an unaligned checkpoint;
// the acknowledgement waits until each delivered its barrier.
func (t *Task) snapshot(id, ts int64, b network.CheckpointBarrier, persist []int) error {
	s := &Snapshot{CheckpointID: id, Operators: make(map[string]*op.Snapshot), Finished: t.finishedOps}
	for _, c := range t.chain {
		sn, ok := c.inst.(op.Snapshotter)
		if !ok || !c.opened {
			continue
		}
		state, err := sn.SnapshotState(id)
		if err != nil {
			s.Release()
			err = c.attr(t)(fmt.Errorf("snapshot for checkpoint %d: %w", id, err))
			t.desc.Checkpoints.Decline(id, err)
			t.log.Warn("checkpoint declined", "id", id, "err", err)
			return t.broadcast(network.CancelCheckpointMarker{ID: id})
		}
		s.Operators[c.node.UID] = state
	}
	b.ID, b.Timestamp = id, ts
	t.Metrics.LastSnapshot.Store(id)
	if err := t.broadcast(b); err != nil {
		return err
	}
	if t.finishedOps && t.finalAfter == 0 {
		t.finalAfter = id
	}
	if b.Drain {
		t.drained = true
	}
	if b.Terminate && !t.finishedOps {
		t.stopID = id
		t.timers.suspend()
	}
	if t.barriers != nil {
		t.barriers.OnSnapshotDone(id)
	}
	if len(persist) > 0 {
		s.ChannelState = make(map[int][][]byte)
		if t.unaligned != nil {
			t.unaligned.snap.Release()
		}
		t.unaligned = &unalignedSnapshot{snap: s, waiting: make(map[int]bool)}
		for _, ch := range persist {
			t.unaligned.waiting[ch] = true
		}
		return nil
	}
	t.desc.Checkpoints.Acknowledge(s)
	return nil
}

// unalignedSnapshot is a snapshot waiting for the channel state of the
// channels whose barrier had not arrived at the snapshot.
type unalignedSnapshot struct {
	snap    *Snapshot
	waiting map[int]bool
}

// recordChannelState keeps a copy of a data buffer that belongs to the
// channel state of the pending unaligned checkpoint.
func (t *Task) recordChannelState(ch int, buf []byte) {
	if t.unaligned == nil || !t.unaligned.waiting[ch] {
		return
	}
	t.unaligned.snap.ChannelState[ch] = append(t.unaligned.snap.ChannelState[ch], append([]byte(nil), buf...))
}

func (t *Task) channelStateDone(id int64, ch int) error {
	u := t.unaligned
	if u == nil || u.snap.CheckpointID != id {
		return nil
	}
	delete(u.waiting, ch)
	if len(u.waiting) == 0 {
		t.unaligned = nil
		t.desc.Checkpoints.Acknowledge(u.snap)
	}
	return nil
}

// discardResponder is the Responder of a job without checkpoints.
type discardResponder struct{}

func (discardResponder) Acknowledge(s *Snapshot) { s.Release() }
func (discardResponder) Decline(int64, error)    {}
func (discardResponder) EndOfData()              {}
