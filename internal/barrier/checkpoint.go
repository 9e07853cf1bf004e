package barrier

import (
	"time"

	"github.com/weir-engine/weir/internal/network/event"
)

// checkpoint is the one pending checkpoint of a handler: started by its
// first barrier or by an RPC trigger, settled when it is snapshotted and
// every channel is aligned (delivered its barrier or ended), or when it is
// aborted.
type checkpoint struct {
	b event.CheckpointBarrier
	// deadline is when an aligned checkpoint with a timeout switches to
	// unaligned; zero without a timeout.
	deadline time.Time
	// arrived[ch]: ch delivered this checkpoint's barrier.
	arrived []bool
	// remaining counts channels neither arrived nor ended.
	remaining int
	// snapshotted: TriggerSnapshot was emitted. An aligned checkpoint is
	// settled at that moment; an unaligned one keeps collecting barriers.
	snapshotted bool
	// unaligned: the snapshot was (or will be) taken unaligned, from the
	// start or after the alignment timed out.
	unaligned bool
	// persisting[ch]: ch's buffers go to the channel state.
	persisting []bool
}

// expired reports whether an alignment timeout is set and has passed at now.
func (cp *checkpoint) expired(now time.Time) bool {
	return !cp.deadline.IsZero() && !now.Before(cp.deadline)
}

// begin makes b the pending checkpoint, with no channel arrived yet. The
// caller has settled any previous one.
func (h *Handler) begin(b event.CheckpointBarrier, now time.Time) {
	cp := &checkpoint{
		b:          b,
		arrived:    make([]bool, len(h.ended)),
		remaining:  h.open,
		unaligned:  b.Unaligned,
		persisting: make([]bool, len(h.ended)),
	}
	if d := b.AlignedTimeout(); !b.Unaligned && d > 0 {
		cp.deadline = now.Add(d)
	}
	h.last = b.ID
	h.cur = cp
}

// arrive marks ch as having delivered the pending checkpoint's barrier at
// now; overtook says the barrier overtook data buffers on ch.
func (h *Handler) arrive(ch int, overtook bool, now time.Time) {
	cp := h.cur
	if cp.arrived[ch] {
		return // a duplicate barrier: nothing new
	}
	cp.arrived[ch] = true
	cp.remaining--
	switch {
	case cp.persisting[ch]:
		cp.persisting[ch] = false
		if overtook {
			h.emit(PersistOvertaken{ID: cp.b.ID, Channel: ch})
		}
		h.emit(StopPersisting{ID: cp.b.ID, Channel: ch})
	case !cp.unaligned && cp.remaining > 0 && !cp.expired(now):
		// Aligning: what follows the barrier waits for the snapshot. The
		// barrier that completes the alignment needs no block, since the
		// snapshot is taken before anything else is polled; nor does one
		// that comes after the deadline, since the switch to unaligned
		// (checkDeadline) follows at once.
		h.block(ch)
	}
}

// progress takes the decisions that follow from the current counts: the
// unaligned snapshot at the start, the aligned snapshot once every channel
// is aligned, and settling a checkpoint once nothing is left to wait for.
func (h *Handler) progress() {
	cp := h.cur
	if cp == nil {
		return
	}
	if !cp.snapshotted {
		if cp.unaligned {
			h.snapshotUnaligned()
		} else if cp.remaining == 0 {
			h.emit(TriggerSnapshot{ID: cp.b.ID, Timestamp: cp.b.Timestamp})
			cp.snapshotted = true
			h.unblockAll()
		}
	}
	if cp.snapshotted && cp.remaining == 0 {
		h.cur = nil
	}
}

// scheduleDeadline asks for a tick at the deadline of a checkpoint that
// just started aligning with a timeout and did not complete at once.
func (h *Handler) scheduleDeadline() {
	if cp := h.cur; cp != nil && !cp.snapshotted && !cp.deadline.IsZero() {
		h.emit(ScheduleTick{At: cp.deadline})
	}
}

// checkDeadline switches the pending alignment to unaligned if its timeout
// has passed at now.
func (h *Handler) checkDeadline(now time.Time) {
	cp := h.cur
	if cp == nil || cp.snapshotted || !cp.expired(now) {
		return
	}
	cp.unaligned = true
	h.snapshotUnaligned()
	h.progress()
}

// snapshotUnaligned takes the snapshot before all barriers arrived: the
// channels still waiting become channel state, and nothing stays blocked.
// Buffers a blocked channel queued after its barrier come after the
// snapshot, so they are processed, not persisted.
func (h *Handler) snapshotUnaligned() {
	cp := h.cur
	var persist []int
	for ch := range cp.arrived {
		if !cp.arrived[ch] && !h.ended[ch] {
			persist = append(persist, ch)
			cp.persisting[ch] = true
		}
	}
	cp.snapshotted = true
	h.emit(TriggerSnapshot{ID: cp.b.ID, Timestamp: cp.b.Timestamp, Unaligned: true, PersistChannels: persist})
	if len(persist) > 0 {
		h.emit(StartPersisting{ID: cp.b.ID, Channels: persist})
	}
	h.unblockAll()
}

// abortSubsumed aborts the pending checkpoint, if any, because a newer one
// showed up.
func (h *Handler) abortSubsumed() {
	if h.cur != nil {
		h.abort(ReasonSubsumed)
	}
}

// abort drops the pending checkpoint: decline it, tell downstream, and let
// blocked channels flow. Persisting ends implicitly with AbortCheckpoint.
func (h *Handler) abort(reason Reason) {
	id := h.cur.b.ID
	h.cur = nil
	h.emit(AbortCheckpoint{ID: id, Reason: reason}, ForwardCancel{ID: id})
	h.unblockAll()
}

func (h *Handler) block(ch int) {
	if !h.blocked[ch] {
		h.blocked[ch] = true
		h.nblocked++
		h.emit(BlockChannel{Channel: ch})
	}
}

// unblockAll emits UnblockAll if any channel is blocked.
func (h *Handler) unblockAll() {
	if h.nblocked == 0 {
		return
	}
	clear(h.blocked)
	h.nblocked = 0
	h.emit(UnblockAll{})
}
