// Package clock makes time an input: components take a Clock, production
// passes Real, and tests pass a Fake they advance by hand, so nothing in a
// unit test waits for wall time.
package clock

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// Clock tells the time and runs functions later.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc.
type Timer interface {
	// Stop prevents the call; it reports whether the call was pending.
	Stop() bool
	// Reset makes the call happen after d from now, whether it was
	// pending, stopped or made; it reports whether it was pending.
	Reset(d time.Duration) bool
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// AfterFunc wraps time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Fake is a manual clock for tests. Functions due are called synchronously
// by Advance, in time order.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	pending []*fakeTimer
	// scheduled is closed, and replaced, by every AfterFunc (see
	// BlockUntil).
	scheduled chan struct{}
}

// NewFake returns a fake clock set to t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

type fakeTimer struct {
	clock *Fake
	at    time.Time
	f     func()
	done  bool
}

// Now returns the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f at Now()+d.
func (c *Fake) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{clock: c, at: c.now.Add(d), f: f}
	c.pending = append(c.pending, t)
	c.notifyScheduled()
	return t
}

// notifyScheduled wakes BlockUntil; c.mu is held.
func (c *Fake) notifyScheduled() {
	if c.scheduled != nil {
		close(c.scheduled)
		c.scheduled = nil
	}
}

// BlockUntil waits until at least n functions are scheduled and neither
// stopped nor called, so that a test can advance the clock once the code
// under test has set its timer.
func (c *Fake) BlockUntil(n int) {
	c.mu.Lock()
	for c.waiting() < n {
		if c.scheduled == nil {
			c.scheduled = make(chan struct{})
		}
		ch := c.scheduled
		c.mu.Unlock()
		<-ch
		c.mu.Lock()
	}
	c.mu.Unlock()
}

// Waiting is the number of functions scheduled and neither stopped nor
// called.
func (c *Fake) Waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waiting()
}

func (c *Fake) waiting() int {
	n := 0
	for _, t := range c.pending {
		if !t.done {
			n++
		}
	}
	return n
}

// Stop implements Timer.
func (t *fakeTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

// Reset implements Timer.
func (t *fakeTimer) Reset(d time.Duration) bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	was := !t.done
	t.at = c.now.Add(d)
	if !was {
		t.done = false
		if !slices.Contains(c.pending, t) {
			c.pending = append(c.pending, t)
		}
	}
	c.notifyScheduled()
	return was
}

// Advance moves time forward by d and runs every function that came due.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	// The due times are copied under the lock: a timer may be Reset by
	// another goroutine, or by a function called below, while they run.
	type call struct {
		at time.Time
		f  func()
	}
	var due []call
	rest := c.pending[:0]
	for _, t := range c.pending {
		switch {
		case t.done:
		case !t.at.After(c.now):
			t.done = true
			due = append(due, call{t.at, t.f})
		default:
			rest = append(rest, t)
		}
	}
	c.pending = rest
	c.mu.Unlock()
	sort.SliceStable(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		t.f()
	}
}
