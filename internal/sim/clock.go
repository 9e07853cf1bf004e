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
	return timer{c.w.After(d, f)}
}

type timer struct{ e *Event }

func (t timer) Stop() bool { return t.e.Cancel() }
