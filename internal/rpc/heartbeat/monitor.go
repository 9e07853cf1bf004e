// Package heartbeat decides when a peer is lost: Monitor is a pure state
// machine over its targets (the peers it watches), the time each was last
// heard from, and the events that drive it (a heartbeat received, a
// connection closed, the clock reaching a deadline). It starts no goroutine
// and reads no clock: its caller passes the time of every event, and asks
// NextDeadline when to call Expire again.
package heartbeat

import (
	"fmt"
	"sort"
	"time"
)

// Reason says why a target was declared lost.
type Reason int

const (
	// Timeout: no heartbeat within the timeout.
	Timeout Reason = iota + 1
	// Disconnected: its connection closed, which is known at once.
	Disconnected
)

func (r Reason) String() string {
	switch r {
	case Timeout:
		return "heartbeat timeout"
	case Disconnected:
		return "connection closed"
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// Loss is a target declared lost.
type Loss struct {
	Target   string
	Reason   Reason
	LastSeen time.Time
	// At is the time of the event that declared it lost.
	At time.Time
}

func (l Loss) String() string {
	return fmt.Sprintf("%s lost at %s (%s; last heard from %s)", l.Target, l.At.Format(time.RFC3339Nano), l.Reason, l.LastSeen.Format(time.RFC3339Nano))
}

// Monitor watches targets. A target is lost once, for good: it stays known
// (so that a late heartbeat is not taken for a new target) until Remove.
// The zero Monitor is not usable; use NewMonitor. It is not safe for
// concurrent use: its owner serialises events (an event loop or a mutex).
type Monitor struct {
	timeout time.Duration
	targets map[string]*target
}

type target struct {
	lastSeen time.Time
	lost     bool
}

// NewMonitor returns a monitor that declares a target lost when timeout
// passes without a heartbeat from it; timeout must be positive.
func NewMonitor(timeout time.Duration) (*Monitor, error) {
	if timeout <= 0 {
		return nil, fmt.Errorf("heartbeat: timeout %v is not positive", timeout)
	}
	return &Monitor{timeout: timeout, targets: map[string]*target{}}, nil
}

// Timeout is the monitor's timeout.
func (m *Monitor) Timeout() time.Duration { return m.timeout }

// Add starts watching id as if a heartbeat came from it at now. Adding a
// target again (a peer that reconnected) revives it.
func (m *Monitor) Add(id string, now time.Time) {
	m.targets[id] = &target{lastSeen: now}
}

// Remove stops watching id (a peer that said goodbye).
func (m *Monitor) Remove(id string) { delete(m.targets, id) }

// Heard records a heartbeat from id at now. It reports false, and changes
// nothing, when id is not watched or already lost.
func (m *Monitor) Heard(id string, now time.Time) bool {
	t, ok := m.targets[id]
	if !ok || t.lost {
		return false
	}
	if now.After(t.lastSeen) {
		t.lastSeen = now
	}
	return true
}

// Disconnected declares id lost at once because its connection closed. It
// reports false when id is not watched or already lost.
func (m *Monitor) Disconnected(id string, now time.Time) (Loss, bool) {
	t, ok := m.targets[id]
	if !ok || t.lost {
		return Loss{}, false
	}
	t.lost = true
	return Loss{Target: id, Reason: Disconnected, LastSeen: t.lastSeen, At: now}, true
}

// Expire declares lost every watched target not heard from since
// now-timeout, in the order of their last heartbeat, and returns them.
func (m *Monitor) Expire(now time.Time) []Loss {
	var out []Loss
	for id, t := range m.targets {
		if !t.lost && !now.Before(t.lastSeen.Add(m.timeout)) {
			t.lost = true
			out = append(out, Loss{Target: id, Reason: Timeout, LastSeen: t.lastSeen, At: now})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].LastSeen.Equal(out[j].LastSeen) {
			return out[i].LastSeen.Before(out[j].LastSeen)
		}
		return out[i].Target < out[j].Target
	})
	return out
}

// NextDeadline is the earliest time at which Expire would declare a target
// lost; false when no target is watched and alive.
func (m *Monitor) NextDeadline() (time.Time, bool) {
	var next time.Time
	found := false
	for _, t := range m.targets {
		if t.lost {
			continue
		}
		d := t.lastSeen.Add(m.timeout)
		if !found || d.Before(next) {
			next, found = d, true
		}
	}
	return next, found
}

// Lost reports whether id is watched and lost.
func (m *Monitor) Lost(id string) bool {
	t, ok := m.targets[id]
	return ok && t.lost
}

// Watching reports whether id is watched (alive or lost).
func (m *Monitor) Watching(id string) bool {
	_, ok := m.targets[id]
	return ok
}
