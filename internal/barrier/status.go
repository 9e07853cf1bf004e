package barrier

import (
	"fmt"
	"strings"
)

// Status is a read-only view of a handler, for tests, metrics and logs.
type Status struct {
	// Pending is true while a checkpoint is aligning or, once snapshotted
	// unaligned, still collecting barriers. The fields up to Persisting
	// describe it.
	Pending bool
	// ID is the pending checkpoint.
	ID int64
	// Unaligned is true once the pending checkpoint is (or switched to)
	// unaligned.
	Unaligned bool
	// Snapshotted is true once TriggerSnapshot was emitted for it.
	Snapshotted bool
	// Waiting lists the channels it still waits for (no barrier, not ended).
	Waiting []int
	// Persisting lists the channels whose buffers go to its channel state.
	Persisting []int

	// Blocked lists the channels the task must keep blocked.
	Blocked []int
	// Ended lists the channels that delivered EndOfPartition.
	Ended []int
	// LastID is the newest checkpoint id seen.
	LastID int64
	// LastSnapshotDone is the newest id given to OnSnapshotDone.
	LastSnapshotDone int64
}

// Status returns the handler's current state.
func (h *Handler) Status() Status {
	s := Status{LastID: h.last, LastSnapshotDone: h.lastSnapshotDone}
	for ch := range h.ended {
		if h.ended[ch] {
			s.Ended = append(s.Ended, ch)
		}
		if h.blocked[ch] {
			s.Blocked = append(s.Blocked, ch)
		}
	}
	cp := h.cur
	if cp == nil {
		return s
	}
	s.Pending, s.ID, s.Unaligned, s.Snapshotted = true, cp.b.ID, cp.unaligned, cp.snapshotted
	for ch := range cp.arrived {
		if !cp.arrived[ch] && !h.ended[ch] {
			s.Waiting = append(s.Waiting, ch)
		}
		if cp.persisting[ch] {
			s.Persisting = append(s.Persisting, ch)
		}
	}
	return s
}

// String renders the status on one line.
func (s Status) String() string {
	var b strings.Builder
	if s.Pending {
		mode := "aligned"
		if s.Unaligned {
			mode = "unaligned"
		}
		fmt.Fprintf(&b, "pending id=%d %s snapshotted=%t waiting=%v persisting=%v",
			s.ID, mode, s.Snapshotted, s.Waiting, s.Persisting)
	} else {
		b.WriteString("idle")
	}
	fmt.Fprintf(&b, " blocked=%v ended=%v last=%d", s.Blocked, s.Ended, s.LastID)
	if s.LastSnapshotDone > 0 {
		fmt.Fprintf(&b, " snapshot-done=%d", s.LastSnapshotDone)
	}
	return b.String()
}
