package task

import (
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/barrier"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// Checkpointing in a task. A source task is triggered by the coordinator
// (TriggerCheckpoint, through the mailbox); other tasks learn of a
// checkpoint from the barriers in their input, which the pure barrier
// handler aligns (or not). At the snapshot the task asks every operator for
// its state, sends the barrier downstream, and hands the state to the
// Responder, which writes it to checkpoint storage and acknowledges it with
// the handles of what it wrote, off the task's goroutine (the TaskManager's
// state writer: the state's bytes never leave the TaskManager). Completion
// and abort notifications come back through the mailbox.
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
	// Location is the snapshot directory the state goes to, and Savepoint
	// tells whether it is a savepoint's (both from the barrier).
	Location  string
	Savepoint bool
	// Operators holds the snapshot of each stateful operator by uid.
	Operators map[string]*op.Snapshot
	// Finished is set when the task took the snapshot after its operators
	// finished (the final checkpoint of a bounded task).
	Finished bool
	// ChannelState holds, for an unaligned checkpoint, the in-flight
	// buffers of each channel: numbers below the number of input channels
	// are input channels (the buffers that preceded the barrier and were
	// processed after the snapshot, or that the barrier overtook), the
	// numbers after them are the subpartitions of the task's outputs, in
	// the order of the vertex's output edges (the buffers the barrier
	// overtook there). On restore the task replays the input buffers into
	// its operators and adds the output buffers to its subpartitions before
	// it writes anything else. One numbering keeps the checkpoint format
	// (one list of channel handles per subtask) unchanged.
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
			if err := t.snapshot(b.ID, b.Timestamp, b, nil); err != nil {
				return err
			}
			t.ackIfComplete()
			return nil
		}
		// The snapshot the handler decides on is of this barrier: its
		// kind and location, not those of the last one received.
		t.lastBarrier = b
		t.barriers.OnTrigger(b, t.cfg.Clock.Now())
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

// onBarrier feeds an in-band barrier to the handler; overtook says data of
// its channel that precedes it has not been processed yet.
func (t *Task) onBarrier(ch int, b network.CheckpointBarrier, overtook bool) error {
	t.lastBarrier = b
	t.barriers.OnBarrier(ch, b, overtook, t.cfg.Clock.Now())
	return t.barrierActions()
}

// barrierActions performs what the barrier handler decided, in order, and
// then acknowledges a snapshot whose channel state is complete.
func (t *Task) barrierActions() error {
	if err := t.performBarrierActions(); err != nil {
		return err
	}
	t.ackIfComplete()
	return nil
}

func (t *Task) performBarrierActions() error {
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
			if b.ID != a.ID {
				// Not this checkpoint's directory: the write refuses
				// to guess, and the checkpoint is declined.
				b.Location = ""
			}
			b.ID, b.Timestamp, b.Unaligned = a.ID, a.Timestamp, a.Unaligned
			if err := t.snapshot(a.ID, a.Timestamp, b, a.PersistChannels); err != nil {
				return err
			}
		case barrier.StartPersisting:
			// Buffers are recorded as they are polled, see recordChannelState.
		case barrier.PersistOvertaken:
			t.persistOvertaken(a.ID, a.Channel)
		case barrier.StopPersisting:
			t.channelStateDone(a.ID, a.Channel)
		case barrier.AbortCheckpoint:
			t.dropPendingAck()
			t.desc.Checkpoints.Decline(a.ID, fmt.Errorf("checkpoint %d aborted in %s: %s", a.ID, t.Name(), a.Reason))
		case barrier.ForwardCancel:
			if err := t.broadcast(network.CancelCheckpointMarker{ID: a.ID}); err != nil {
				return err
			}
		case barrier.ScheduleTick:
			t.ownTimers().Schedule(a.At, func() error {
				t.barriers.OnTick(t.cfg.Clock.Now())
				return t.barrierActions()
			})
		}
	}
	return nil
}

// snapshot takes checkpoint id: operator state first, then the barrier goes
// downstream, then the snapshot waits in pendingAck to be acknowledged
// (ackIfComplete). persist lists the input channels whose in-flight data
// belongs to an unaligned checkpoint; the acknowledgement waits until each
// delivered its barrier. An unaligned barrier overtakes the buffers queued
// in the task's subpartitions: they are the output side of its channel
// state.
func (t *Task) snapshot(id, ts int64, b network.CheckpointBarrier, persist []int) error {
	s := &Snapshot{CheckpointID: id, Location: b.Location, Savepoint: b.Savepoint, Operators: make(map[string]*op.Snapshot), Finished: t.finishedOps}
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
	overtaken, err := t.broadcastOvertaking(b)
	if err != nil {
		s.Release()
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
	t.dropPendingAck()
	p := &pendingSnapshot{snap: s, waiting: make(map[int]bool)}
	if b.Unaligned {
		s.ChannelState = overtaken
		if s.ChannelState == nil {
			s.ChannelState = make(map[int][][]byte)
		}
		for _, ch := range persist {
			p.waiting[ch] = true
			// The rest of a buffer of a persisted channel, in progress
			// at the snapshot, is the first of its channel state.
			if b := t.inProgress; b != nil && b.ch == ch {
				s.ChannelState[ch] = append(s.ChannelState[ch], clone(b.rest()))
				b.persistedFor = id
			}
		}
	}
	t.pendingAck = p
	return nil
}

// pendingSnapshot is a snapshot not acknowledged yet: an unaligned one
// waits for the channel state of the channels whose barrier had not arrived
// at the snapshot.
type pendingSnapshot struct {
	snap    *Snapshot
	waiting map[int]bool
}

// ackIfComplete acknowledges the pending snapshot once no channel state is
// missing.
func (t *Task) ackIfComplete() {
	if p := t.pendingAck; p != nil && len(p.waiting) == 0 {
		t.pendingAck = nil
		if len(p.snap.ChannelState) == 0 {
			p.snap.ChannelState = nil
		}
		t.desc.Checkpoints.Acknowledge(p.snap)
	}
}

// dropPendingAck releases a snapshot that will not be acknowledged.
func (t *Task) dropPendingAck() {
	if t.pendingAck != nil {
		t.pendingAck.snap.Release()
		t.pendingAck = nil
	}
}

// recordChannelState keeps a copy of a data buffer that belongs to the
// channel state of the pending unaligned checkpoint, and returns that
// checkpoint's id (0 when the buffer is not channel state).
func (t *Task) recordChannelState(ch int, buf []byte) int64 {
	if p := t.pendingAck; p != nil && p.waiting[ch] {
		p.snap.ChannelState[ch] = append(p.snap.ChannelState[ch], clone(buf))
		return p.snap.CheckpointID
	}
	return 0
}

// persistOvertaken adds to checkpoint id's state of channel ch what the
// barrier polled from ch overtook: the rest of the buffer in progress on
// ch (unless the state holds it already), then the buffers queued behind
// it.
func (t *Task) persistOvertaken(id int64, ch int) {
	p := t.pendingAck
	if p == nil || p.snap.CheckpointID != id {
		return
	}
	if b := t.inProgress; b != nil && b.ch == ch && b.persistedFor != id {
		p.snap.ChannelState[ch] = append(p.snap.ChannelState[ch], clone(b.rest()))
	}
	if t.overtakenCh == ch {
		p.snap.ChannelState[ch] = append(p.snap.ChannelState[ch], t.overtaken...)
	}
}

func (t *Task) channelStateDone(id int64, ch int) {
	if p := t.pendingAck; p != nil && p.snap.CheckpointID == id {
		delete(p.waiting, ch)
	}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// replayChannelState restores the in-flight data of an unaligned checkpoint
// before any live input: the output buffers go back to their subpartitions
// first (they precede anything the task writes now), then the input
// buffers are processed (they came before the barrier on their channel).
func (t *Task) replayChannelState() error {
	in := len(t.layout)
	chans := make([]int, 0, len(t.desc.ChannelState))
	for ch := range t.desc.ChannelState {
		chans = append(chans, ch)
	}
	slices.Sort(chans)
	for _, ch := range chans {
		if ch < in {
			continue
		}
		sub, err := t.outputChannel(ch - in)
		if err != nil {
			return err
		}
		for _, b := range t.desc.ChannelState[ch] {
			if _, err := sub.Add(network.Item{Buf: b}); err != nil {
				return fmt.Errorf("task: restore output channel state: %w", err)
			}
		}
	}
	for _, ch := range chans {
		if ch < 0 {
			return fmt.Errorf("task: restored channel state for channel %d", ch)
		}
		if ch >= in {
			break
		}
		for _, b := range t.desc.ChannelState[ch] {
			if err := t.deliver(ch, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// outputChannel is the subpartition numbered i after the input channels.
func (t *Task) outputChannel(i int) (*network.Subpartition, error) {
	for _, p := range t.partitions {
		if i < p.NumSubpartitions() {
			return p.Subpartition(i), nil
		}
		i -= p.NumSubpartitions()
	}
	return nil, fmt.Errorf("task: restored channel state for a channel beyond the %d input channels and the subpartitions of %s: "+
		"the job changed its partitioning since the unaligned checkpoint", len(t.layout), t.Name())
}

// discardResponder is the Responder of a job without checkpoints.
type discardResponder struct{}

func (discardResponder) Acknowledge(s *Snapshot) { s.Release() }
func (discardResponder) Decline(int64, error)    {}
func (discardResponder) EndOfData()              {}
