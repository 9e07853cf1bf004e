package task

import (
	"fmt"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// The mailbox loop (Flink's MailboxProcessor with its availability-based
// default action). Each turn runs the queued mail (triggers,
// notifications, timers, split replies) and the processing-time timers
// that are due, then polls the gate's priority
// events (unaligned barriers, cancel markers), and only then, if every
// output partition is available, processes input: one source poll, or the
// records of one input buffer. A task whose output is not available does
// not read input and does not poll its source: it waits for mail, for a
// priority event, or for its output to become available again. Nothing in
// the loop blocks inside a send, so a back-pressured task answers a
// checkpoint trigger or an unaligned barrier at once.
//
// An input buffer is delivered record by record, and the task stops between
// two records when its output becomes unavailable, a priority event
// arrives or mail is queued; it resumes the buffer on a later turn. The
// unread rest of that buffer is in-flight data for an unaligned checkpoint
// that starts meanwhile (see checkpoint.go).

// inProgressBuffer is an input buffer the task stopped in the middle of.
type inProgressBuffer struct {
	ch  int
	buf []byte
	off int
	// persistedFor is the checkpoint whose channel state holds the whole
	// rest of the buffer already (0: none): it was polled while its
	// channel was persisted, or was in progress at the snapshot.
	persistedFor int64
}

// rest is the part of the buffer not delivered yet.
func (b *inProgressBuffer) rest() []byte { return b.buf[b.off:] }

// loop runs the mailbox loop until done reports true.
func (t *Task) loop(done func() bool) error {
	cancelled := t.ctx.Done()
	for {
		select {
		case <-cancelled:
			return t.ctx.Err()
		default:
		}
		if err := t.mail.runAll(); err != nil {
			return err
		}
		if err := t.timers.fireIfDue(); err != nil {
			return err
		}
		if done() {
			return nil
		}
		if t.stopID != 0 {
			// The snapshot of a stop-with-savepoint is taken: nothing may
			// be read or emitted until it completes or is aborted, both of
			// which arrive as mail.
			t.Metrics.startWait(false)
			select {
			case <-t.mail.signal:
			case <-cancelled:
				t.Metrics.endWait()
				return t.ctx.Err()
			}
			t.Metrics.endWait()
			continue
		}
		if t.gate != nil {
			if it, ch, ok := t.gate.PollPriority(); ok {
				if err := t.handle(it, ch); err != nil {
					return err
				}
				continue
			}
		}
		available := t.outputAvailable()
		if available {
			progressed, err := t.step()
			if err != nil {
				return err
			}
			if progressed {
				continue
			}
		}
		if err := t.flush(); err != nil {
			return err
		}
		// Without output, input is not read; the gate still wakes the
		// task for its priority events.
		var input, output <-chan struct{}
		switch {
		case available:
			input = t.available()
		case t.gate != nil:
			input, output = t.gate.Available(), t.outputWake
		default:
			output = t.outputWake
		}
		// The one wait of the loop: idle while the outputs can take more,
		// back-pressured while one cannot (metrics.go).
		t.Metrics.startWait(!available)
		select {
		case <-t.mail.signal:
		case <-input:
		case <-output:
		case <-cancelled:
			t.Metrics.endWait()
			return t.ctx.Err()
		}
		t.Metrics.endWait()
	}
}

// outputAvailable reports whether every output partition can take more.
func (t *Task) outputAvailable() bool {
	for _, p := range t.partitions {
		if !p.IsAvailable() {
			return false
		}
	}
	return true
}

// interrupted reports whether the task should stop between two records of
// an input buffer and return to its loop.
func (t *Task) interrupted() bool {
	return t.mail.pending.Load() > 0 || t.gate.HasPriority() || !t.outputAvailable()
}

func (t *Task) available() <-chan struct{} {
	if t.source != nil {
		return t.source.Available()
	}
	return t.gate.Available()
}

// step processes one unit of input and reports whether there was any.
func (t *Task) step() (bool, error) {
	if t.source != nil {
		if t.sourceEnded {
			return false, nil
		}
		st, err := t.source.PollNext()
		if err != nil {
			return false, t.chain[0].attr(t)(err)
		}
		t.noteSourceProgress()
		switch st {
		case op.NothingAvailable:
			return false, nil
		case op.EndOfInput:
			t.sourceEnded = true
			// A bounded source ends event time: every timer downstream fires.
			return true, t.chain[0].emitWatermark(op.MaxWatermark)
		}
		return true, nil
	}
	if t.inProgress != nil {
		return true, t.resume()
	}
	it, ch, ok := t.gate.Poll()
	if !ok {
		return false, nil
	}
	return true, t.handle(it, ch)
}

func (t *Task) handle(it network.Item, ch int) error {
	switch e := it.Event.(type) {
	case nil:
		if t.endOfData[ch] {
			return fmt.Errorf("task: channel %d sent data after EndOfData", ch)
		}
		if t.desc.FinishedOnRestore {
			return fmt.Errorf("task %s finished before the checkpoint it was restored from, but received data", t.Name())
		}
		// One slot for the buffer in progress, reused: no allocation per
		// buffer.
		t.inProgressSlot = inProgressBuffer{ch: ch, buf: it.Buf, persistedFor: t.recordChannelState(ch, it.Buf)}
		t.inProgress = &t.inProgressSlot
		return t.resume()
	case network.CheckpointBarrier:
		// The data this barrier overtook, and the rest of a buffer of its
		// channel in progress, precede it: the handler decides whether
		// they are channel state (PersistOvertaken).
		t.overtaken, t.overtakenCh = it.Overtaken, ch
		defer func() { t.overtaken = nil }()
		overtook := len(it.Overtaken) > 0 || (t.inProgress != nil && t.inProgress.ch == ch)
		return t.onBarrier(ch, e, overtook)
	case network.CancelCheckpointMarker:
		t.barriers.OnCancelMarker(ch, e.ID)
		return t.barrierActions()
	case network.EndOfData:
		return t.channelEndOfData(ch)
	case network.EndOfPartition:
		if err := t.channelEndOfData(ch); err != nil {
			return err
		}
		if !t.endOfPartition[ch] {
			t.endOfPartition[ch] = true
			t.eopCount++
			t.barriers.OnEndOfPartition(ch)
			return t.barrierActions()
		}
		return nil
	case network.ChannelFailed:
		// The connection carrying the channel broke, or a blocking
		// partition it reads is missing or damaged: the task fails with
		// the cause, and the job (or its region) restarts.
		return fmt.Errorf("task: input channel %d: %w", ch, e.Err)
	default:
		return fmt.Errorf("task: unexpected event %T on channel %d", e, ch)
	}
}

// resume delivers the buffer in progress until its end or an interruption,
// and recycles it once delivered.
func (t *Task) resume() error {
	b := t.inProgress
	cb := t.channelCallbacks(b.ch)
	n, consumed, err := t.readers[b.ch].DeliverUntil(b.rest(), cb.watermark, cb.status, cb.interrupted)
	b.off += consumed
	t.recordsIn += int64(n)
	t.Metrics.RecordsIn.Store(t.recordsIn)
	if err != nil {
		return err
	}
	if b.off == len(b.buf) {
		t.inProgress = nil
		t.gate.Recycle(b.ch, b.buf)
	}
	return nil
}

// deliver decodes a whole data buffer of channel ch into the head operator.
func (t *Task) deliver(ch int, buf []byte) error {
	cb := t.channelCallbacks(ch)
	n, err := t.readers[ch].Deliver(buf, cb.watermark, cb.status)
	t.recordsIn += int64(n)
	t.Metrics.RecordsIn.Store(t.recordsIn)
	return err
}

// channelCallbacks are what the reader of one input channel calls back,
// made once per channel rather than for every buffer.
type channelCallbacks struct {
	watermark   func(int64) error
	status      func(bool) error
	interrupted func() bool
}

func (t *Task) channelCallbacks(ch int) *channelCallbacks {
	if len(t.callbacks) != len(t.readers) {
		t.callbacks = make([]channelCallbacks, len(t.readers))
	}
	cb := &t.callbacks[ch]
	if cb.watermark == nil {
		cb.watermark = func(wm int64) error { return t.forwardValve(t.valve.Input(ch, wm)) }
		cb.status = func(idle bool) error { return t.forwardValve(t.valve.SetIdle(ch, idle)) }
		cb.interrupted = t.interrupted
	}
	return cb
}

// noteSourceProgress publishes the source's progress in the task's
// metrics: what its op.SizedSource says, or an unknown total.
func (t *Task) noteSourceProgress() {
	if t.sized == nil {
		t.Metrics.SourceTotal.Store(-1)
		return
	}
	emitted, total := t.sized.Progress()
	t.Metrics.SourceEmitted.Store(emitted)
	t.Metrics.SourceTotal.Store(total)
}
