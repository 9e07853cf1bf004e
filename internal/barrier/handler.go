package barrier

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/network/event"
)

// Handler decides, for one task's input channels, when checkpoint barriers
// are aligned and what the task must do about it. It is a pure state
// machine: feed it events with the On... methods (or Step), then perform
// what Ready returns, in order, before feeding the next event. It is not
// safe for concurrent use; the task's mailbox goroutine owns it.
type Handler struct {
	// ended[ch]: channel ch delivered EndOfPartition. It counts as aligned
	// for every pending and future checkpoint.
	ended []bool
	open  int // channels not ended

	// blocked mirrors the BlockChannel actions not yet undone by UnblockAll.
	blocked  []bool
	nblocked int

	// last is the newest checkpoint id seen in any barrier, trigger or
	// cancel marker (or Options.LastCheckpointID). Anything at or below it
	// that is not cur is obsolete.
	last int64
	// cur is the one pending checkpoint, nil when none.
	cur *checkpoint
	// lastSnapshotDone is the newest id reported by OnSnapshotDone.
	lastSnapshotDone int64

	out []Action
}

// New returns a handler for a task with numChannels input channels (0 for a
// source task, which is only ever triggered by RPC). It panics if
// numChannels is negative or opts is invalid: both are programming errors.
func New(numChannels int, opts Options) *Handler {
	if numChannels < 0 {
		panic(fmt.Sprintf("barrier: negative channel count %d", numChannels))
	}
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	return &Handler{
		ended:   make([]bool, numChannels),
		open:    numChannels,
		blocked: make([]bool, numChannels),
		last:    opts.LastCheckpointID,
	}
}

// Ready returns the actions produced since the last call, in the order the
// task must perform them, and forgets them.
func (h *Handler) Ready() []Action {
	out := h.out
	h.out = nil
	return out
}

// OnBarrier handles barrier b polled from channel ch at now. overtook says
// b overtook data buffers queued in its channel (an unaligned barrier is a
// priority event, see network.IsPriority): those buffers precede it in the
// stream, yet the task polls them after it.
//
// A barrier of the pending checkpoint marks ch aligned (blocking it while
// an aligned checkpoint still waits for others). A barrier of a newer
// checkpoint aborts the pending one as subsumed and starts the new one.
// Anything else (an older or settled id, a duplicate, a barrier on an ended
// channel) is ignored. Then, if the pending alignment has outlived its
// timeout at now, it switches to unaligned: an event that completes the
// alignment wins over a deadline that passed unnoticed.
func (h *Handler) OnBarrier(ch int, b event.CheckpointBarrier, overtook bool, now time.Time) {
	h.checkChannel(ch)
	if h.ended[ch] {
		return
	}
	switch {
	case h.cur != nil && b.ID == h.cur.b.ID:
		h.arrive(ch, overtook, now)
		h.progress()
	case b.ID > h.last:
		h.abortSubsumed()
		h.begin(b, now)
		cp := h.cur
		h.arrive(ch, overtook, now)
		h.progress()
		if overtook && cp.unaligned && cp.snapshotted {
			// The first barrier snapshots at once; what it overtook
			// on its channel precedes it, so it is channel state.
			h.emit(PersistOvertaken{ID: b.ID, Channel: ch})
		}
		h.scheduleDeadline()
	}
	h.checkDeadline(now)
}

// OnCancelMarker handles network.CancelCheckpointMarker{ID: id} polled from channel ch.
//
// It aborts the pending checkpoint if it is id. For an id newer than any
// seen, it aborts the pending checkpoint as subsumed and then id itself, and
// remembers id so that its late barriers are ignored. Each abort forwards
// the cancel marker downstream once. A marker for a settled or older id is
// ignored.
func (h *Handler) OnCancelMarker(ch int, id int64) {
	h.checkChannel(ch)
	if h.ended[ch] {
		return
	}
	switch {
	case h.cur != nil && id == h.cur.b.ID:
		h.abort(ReasonCanceled)
	case id > h.last:
		h.abortSubsumed()
		h.last = id
		h.emit(AbortCheckpoint{ID: id, Reason: ReasonCanceled}, ForwardCancel{ID: id})
	}
}

// OnEndOfPartition handles EndOfPartition polled from channel ch. From now
// on ch counts as aligned for the pending checkpoint and every later one: it
// may complete the pending alignment, and it ends the persisting of ch's
// channel state (the buffers before EndOfPartition belong to it).
func (h *Handler) OnEndOfPartition(ch int) {
	h.checkChannel(ch)
	if h.ended[ch] {
		return
	}
	h.ended[ch] = true
	h.open--
	if cp := h.cur; cp != nil && !cp.arrived[ch] {
		cp.remaining--
		if cp.persisting[ch] {
			cp.persisting[ch] = false
			h.emit(StopPersisting{ID: cp.b.ID, Channel: ch})
		}
		h.progress()
	}
}

// OnTrigger handles checkpoint b triggered by RPC at now: the task is a
// source, or every task upstream of it has finished (FLIP-147).
//
// A newer id aborts the pending checkpoint as subsumed and starts b with no
// barrier received yet. Every channel that has not ended must still deliver
// EndOfPartition (or the barrier of b, if an upstream emitted it before
// finishing) before an aligned snapshot; with no open channel, the snapshot
// is taken at once. An unaligned b is snapshotted at once, persisting the
// open channels up to their EndOfPartition. A trigger for the pending id is
// the same checkpoint and changes nothing; an older id is ignored.
func (h *Handler) OnTrigger(b event.CheckpointBarrier, now time.Time) {
	if b.ID > h.last {
		h.abortSubsumed()
		h.begin(b, now)
		h.progress()
		h.scheduleDeadline()
	}
	h.checkDeadline(now)
}

// OnTick reports the time. It switches a timed-out alignment to unaligned.
func (h *Handler) OnTick(now time.Time) { h.checkDeadline(now) }

// OnSnapshotDone records that the task finished the snapshot of id. It is
// optional and changes no decision: the handler relies on the task taking
// the snapshot synchronously when it performs TriggerSnapshot, before the
// actions that follow it (see the package documentation).
func (h *Handler) OnSnapshotDone(id int64) {
	if id > h.lastSnapshotDone {
		h.lastSnapshotDone = id
	}
}

// OnBufferReceived reports whether a data buffer just polled from channel
// ch belongs to the channel state of an unaligned checkpoint, and of which
// one. It is optional: it answers from the same state as the
// StartPersisting and StopPersisting actions, for a task that would rather
// ask than track them.
func (h *Handler) OnBufferReceived(ch int) (id int64, persist bool) {
	h.checkChannel(ch)
	if cp := h.cur; cp != nil && cp.persisting[ch] {
		return cp.b.ID, true
	}
	return 0, false
}

func (h *Handler) checkChannel(ch int) {
	if ch < 0 || ch >= len(h.ended) {
		panic(fmt.Sprintf("barrier: channel %d out of range [0,%d)", ch, len(h.ended)))
	}
}

func (h *Handler) emit(a ...Action) { h.out = append(h.out, a...) }
