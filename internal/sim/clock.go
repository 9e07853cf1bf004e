package sim

import (
	"time"

	"github.com/weir-engine/weir/internal/clock"
)

// Clock is the world's time as a clock.Clock. Unlike clock.Real, its
// AfterFunc calls f on the goroutine driving the world, at the virtual
// time it is due.
func (w *World) Clock() clock.Clock { return worldClock{w} }

type worldClock struct{ w *World }

func (c worldClock) Now() time.Time { return c.w.Now() }

func (c worldClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	return &timer{w: c.w, f: f, e: c.w.After(d, f)}
}

// A timer is the world's latest event for its function.
type timer struct {
	w *World
	f func()
	e *Event
}

func (t *timer) Stop() bool { return t.e.Cancel() }

// Reset cancels the pending event, if any, and schedules another.
func (t *timer) Reset(d time.Duration) bool {
	was := t.e.Cancel()
	t.e = t.w.After(d, t.f)
	return was
}
