package barrier

import (
	"fmt"
	"slices"
	"time"

	"github.com/weir-engine/weir/internal/network/event"
	"pgregory.net/rapid"
)

// model mirrors what the task and the gate know, built only from the events
// delivered and the actions received, and checks the handler's promises:
//
//   - every TriggerSnapshot id is triggered at most once, in increasing order;
//   - an aligned snapshot comes only once every channel delivered its barrier
//     or EndOfPartition; an unaligned one only for an unaligned checkpoint or
//     after its alignment timeout, persisting exactly the channels without
//     barrier or EndOfPartition;
//   - channels are blocked only by a barrier of the checkpoint aligning, and
//     unblocked only after its snapshot or abort; none stays blocked once
//     that checkpoint is settled;
//   - a channel persists from the snapshot until its barrier or
//     EndOfPartition, or the abort;
//   - once every channel delivered barrier n or EndOfPartition, checkpoint n
//     is snapshotted or aborted (if n was ever current: see required);
//   - a timed-out alignment has switched by the next event that carries time;
//   - each cancel is forwarded once, after the abort it announces.
type model struct {
	t *rapid.T
	r run

	ended     []bool
	delivered []map[int64]bool // barriers delivered per channel

	blocked    map[int]bool
	blockedFor int64 // checkpoint of the blocked channels' barriers
	persisting map[int]int64

	snapshotted map[int64]bool
	unaligned   map[int64]bool // snapshotted unaligned
	aborted     map[int64]bool
	forwarded   map[int64]bool
	lastSnap    int64

	// maxSeen is the largest id of any barrier, cancel or trigger delivered.
	maxSeen int64
	// required holds the ids whose first event came when no newer id had
	// been seen: the handler made them current (or aborted them at once).
	// An id first seen after a newer one is obsolete and may be ignored.
	required map[int64]bool
	// start is when a required id started (its first barrier or trigger).
	start map[int64]time.Time
}

func newModel(t *rapid.T, r run) *model {
	m := &model{
		t: t, r: r,
		ended:       make([]bool, r.channels),
		blocked:     map[int]bool{},
		persisting:  map[int]int64{},
		snapshotted: map[int64]bool{},
		unaligned:   map[int64]bool{},
		aborted:     map[int64]bool{},
		forwarded:   map[int64]bool{},
		required:    map[int64]bool{},
		start:       map[int64]time.Time{},
	}
	for range r.channels {
		m.delivered = append(m.delivered, map[int64]bool{})
	}
	return m
}

func (m *model) fatalf(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf(format, args...)
}

// buffer delivers a data buffer on c and checks what it belongs to.
func (m *model) buffer(h *Handler, c int) {
	id, ok := h.OnBufferReceived(c)
	want, wantOK := m.persisting[c]
	if ok != wantOK || id != want {
		m.fatalf("buffer on %d: handler says (%d,%t), model (%d,%t)", c, id, ok, want, wantOK)
	}
}

// step delivers ev, then checks the actions and the state after them.
func (m *model) step(h *Handler, ev Event, now time.Time) {
	m.t.Helper()
	m.see(ev, now)
	h.Step(ev)
	acts := h.Ready()
	m.t.Logf("%s -> %v", describe(ev), acts)
	var lastPersist []int
	for _, a := range acts {
		switch a := a.(type) {
		case BlockChannel:
			m.onBlock(ev, a)
		case UnblockAll:
			if len(m.blocked) == 0 {
				m.fatalf("unblock-all with nothing blocked")
			}
			if !m.snapshotted[m.blockedFor] && !m.aborted[m.blockedFor] {
				m.fatalf("unblock-all before checkpoint %d was snapshotted or aborted", m.blockedFor)
			}
			clear(m.blocked)
		case TriggerSnapshot:
			lastPersist = m.onSnapshot(a, now)
		case StartPersisting:
			if len(a.Channels) == 0 || !slices.Equal(a.Channels, lastPersist) {
				m.fatalf("start-persisting %v, snapshot said %v", a.Channels, lastPersist)
			}
			for _, c := range a.Channels {
				if _, ok := m.persisting[c]; ok {
					m.fatalf("channel %d persisting twice", c)
				}
				m.persisting[c] = a.ID
			}
		case StopPersisting:
			m.onStopPersisting(ev, a)
		case AbortCheckpoint:
			if m.aborted[a.ID] {
				m.fatalf("checkpoint %d aborted twice", a.ID)
			}
			if m.snapshotted[a.ID] && !m.unaligned[a.ID] {
				m.fatalf("aligned checkpoint %d aborted after its snapshot", a.ID)
			}
			m.aborted[a.ID] = true
			for c, id := range m.persisting {
				if id == a.ID {
					delete(m.persisting, c)
				}
			}
		case ForwardCancel:
			if m.forwarded[a.ID] || !m.aborted[a.ID] {
				m.fatalf("forward-cancel %d: forwarded=%t aborted=%t", a.ID, m.forwarded[a.ID], m.aborted[a.ID])
			}
			m.forwarded[a.ID] = true
		case ScheduleTick:
			b, ok := eventBarrier(ev)
			if !ok || b.AlignedTimeout() == 0 || b.Unaligned || !a.At.Equal(now.Add(b.AlignedTimeout())) {
				m.fatalf("schedule-tick %v after %s", a.At.Sub(epoch), describe(ev))
			}
		}
	}
	m.check(h, ev, now)
}

// see records the event in the model before the handler acts on it.
func (m *model) see(ev Event, now time.Time) {
	id, isBarrier := int64(0), false
	switch e := ev.(type) {
	case BarrierReceived:
		id, isBarrier = e.Barrier.ID, true
		m.delivered[e.Channel][id] = true
	case Triggered:
		id, isBarrier = e.Barrier.ID, true
	case CancelReceived:
		id = e.ID
	case EndOfPartitionReceived:
		m.ended[e.Channel] = true
	}
	if id > m.maxSeen {
		m.maxSeen = id
		m.required[id] = true
		if isBarrier {
			m.start[id] = now
		}
	}
}

func (m *model) onBlock(ev Event, a BlockChannel) {
	e, ok := ev.(BarrierReceived)
	if !ok || e.Channel != a.Channel {
		m.fatalf("block %d after %s", a.Channel, describe(ev))
	}
	id := e.Barrier.ID
	if m.blocked[a.Channel] || m.ended[a.Channel] || e.Barrier.Unaligned || m.snapshotted[id] || m.aborted[id] {
		m.fatalf("block %d for checkpoint %d: bad state", a.Channel, id)
	}
	if len(m.blocked) > 0 && m.blockedFor != id {
		m.fatalf("block %d for checkpoint %d while %d blocks others", a.Channel, id, m.blockedFor)
	}
	m.blocked[a.Channel] = true
	m.blockedFor = id
}

func (m *model) onSnapshot(a TriggerSnapshot, now time.Time) []int {
	id := a.ID
	if m.snapshotted[id] || m.aborted[id] || id <= m.lastSnap || !m.required[id] {
		m.fatalf("snapshot %d: snapshotted=%t aborted=%t last=%d required=%t",
			id, m.snapshotted[id], m.aborted[id], m.lastSnap, m.required[id])
	}
	if a.Timestamp != 1000*id {
		m.fatalf("snapshot %d carries timestamp %d", id, a.Timestamp)
	}
	m.snapshotted[id], m.lastSnap = true, id
	var open []int
	for c := range m.ended {
		if !m.ended[c] && !m.delivered[c][id] {
			open = append(open, c)
		}
	}
	md := m.r.modes[id-1]
	if !a.Unaligned {
		if md == modeUnaligned || len(open) > 0 {
			m.fatalf("aligned snapshot %d (mode %d) with channels %v not aligned", id, md, open)
		}
		return nil
	}
	m.unaligned[id] = true
	switch {
	case md == modeUnaligned:
	case md == modeTimeout && !now.Before(m.start[id].Add(m.r.timeouts[id-1])):
	default:
		m.fatalf("unaligned snapshot %d of mode %d at %v (start %v)", id, md, now.Sub(epoch), m.start[id].Sub(epoch))
	}
	if !slices.Equal(a.PersistChannels, open) {
		m.fatalf("snapshot %d persists %v, want %v", id, a.PersistChannels, open)
	}
	return open
}

func (m *model) onStopPersisting(ev Event, a StopPersisting) {
	if m.persisting[a.Channel] != a.ID {
		m.fatalf("stop-persisting %d on %d, which persists for %d", a.ID, a.Channel, m.persisting[a.Channel])
	}
	switch e := ev.(type) {
	case BarrierReceived:
		if e.Channel != a.Channel || e.Barrier.ID != a.ID {
			m.fatalf("stop-persisting %v after %s", a, describe(ev))
		}
	case EndOfPartitionReceived:
		if e.Channel != a.Channel {
			m.fatalf("stop-persisting %v after %s", a, describe(ev))
		}
	default:
		m.fatalf("stop-persisting %v after %s", a, describe(ev))
	}
	delete(m.persisting, a.Channel)
}

// check verifies the state invariants after a batch.
func (m *model) check(h *Handler, ev Event, now time.Time) {
	if len(m.blocked) > 0 {
		if m.snapshotted[m.blockedFor] || m.aborted[m.blockedFor] {
			m.fatalf("channels %v still blocked after checkpoint %d settled", m.blocked, m.blockedFor)
		}
		for c := range m.blocked {
			if !m.delivered[c][m.blockedFor] {
				m.fatalf("channel %d blocked without barrier %d", c, m.blockedFor)
			}
		}
	}
	for c, id := range m.persisting {
		if !m.unaligned[id] || m.aborted[id] || m.ended[c] || m.delivered[c][id] {
			m.fatalf("channel %d persisting for %d in a bad state", c, id)
		}
	}
	for id := range m.required {
		if m.snapshotted[id] || m.aborted[id] {
			continue
		}
		all := true
		for c := range m.ended {
			all = all && (m.ended[c] || m.delivered[c][id])
		}
		if all {
			m.fatalf("every channel aligned for %d, yet neither snapshotted nor aborted", id)
		}
		if isTimed(ev) {
			md := m.r.modes[id-1]
			if md == modeTimeout && !m.start[id].IsZero() && !now.Before(m.start[id].Add(m.r.timeouts[id-1])) {
				m.fatalf("checkpoint %d still aligning at %v past its timeout", id, now.Sub(epoch))
			}
		}
	}
	st := h.Status()
	if got, want := st.Blocked, sortedKeys(m.blocked); !slices.Equal(got, want) {
		m.fatalf("status blocked %v, model %v", got, want)
	}
	var persisting []int
	for c := range m.persisting {
		persisting = append(persisting, c)
	}
	slices.Sort(persisting)
	if !slices.Equal(st.Persisting, persisting) {
		m.fatalf("status persisting %v, model %v", st.Persisting, persisting)
	}
}

// final checks the end of a run: once every channel ended, nothing is
// blocked, persisted or pending.
func (m *model) final(h *Handler) {
	for c := range m.ended {
		if !m.ended[c] {
			return
		}
	}
	if st := h.Status(); st.Pending || len(m.blocked) > 0 || len(m.persisting) > 0 {
		m.fatalf("all channels ended, but %s", st)
	}
}

func isTimed(ev Event) bool {
	switch ev.(type) {
	case BarrierReceived, Triggered, Tick:
		return true
	}
	return false
}

func eventBarrier(ev Event) (event.CheckpointBarrier, bool) {
	switch e := ev.(type) {
	case BarrierReceived:
		return e.Barrier, true
	case Triggered:
		return e.Barrier, true
	}
	return event.CheckpointBarrier{}, false
}

func sortedKeys(s map[int]bool) []int {
	var out []int
	for k := range s {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func describe(ev Event) string {
	switch e := ev.(type) {
	case BarrierReceived:
		return fmt.Sprintf("barrier ch=%d %+v overtook=%t at=%v", e.Channel, e.Barrier, e.Overtook, e.Now.Sub(epoch))
	case Triggered:
		return fmt.Sprintf("trigger %+v at=%v", e.Barrier, e.Now.Sub(epoch))
	case Tick:
		return fmt.Sprintf("tick at=%v", e.Now.Sub(epoch))
	}
	return fmt.Sprintf("%T%+v", ev, ev)
}
