package task

import (
	"time"

	"github.com/weir-engine/weir/internal/clock"
)

// timerSet tracks the pending clock timers of a task so that the task can
// stop them when it ends. Only the task's goroutine touches it.
type timerSet struct {
	pending  map[*pendingTimer]struct{}
	quiesced bool
	// suspended holds back due callbacks while the task waits for a
	// stop-with-savepoint to complete: nothing may be emitted after the
	// savepoint's barrier. held keeps them, in order, for resume.
	suspended bool
	held      []heldTimer
}

type heldTimer struct {
	p  *pendingTimer
	fn func() error
}

type pendingTimer struct {
	timer     clock.Timer
	cancelled bool
}

func (s *timerSet) stopAll() {
	s.quiesced = true
	for p := range s.pending {
		p.timer.Stop()
	}
	s.pending = nil
	s.held = nil
}

// suspend holds back every callback that falls due from now on.
func (s *timerSet) suspend() { s.suspended = true }

// resume runs, in order, the callbacks held back since suspend that were
// not cancelled meanwhile.
func (s *timerSet) resume() error {
	s.suspended = false
	held := s.held
	s.held = nil
	for _, h := range held {
		if h.p.cancelled || s.quiesced {
			continue
		}
		if err := h.fn(); err != nil {
			return err
		}
	}
	return nil
}

// timers implements op.TimerScheduler for one operator on the task's clock
// and mailbox: a due callback is put into the mailbox and runs on the task's
// goroutine. Once the set is quiesced (the operators finished), no callback
// runs any more.
type timers struct {
	clock clock.Clock
	mail  *mailbox
	attr  func(error) error
	set   *timerSet
}

func (t timers) Now() time.Time { return t.clock.Now() }

func (t timers) Schedule(at time.Time, fn func() error) (cancel func()) {
	if t.set.quiesced {
		return func() {}
	}
	p := &pendingTimer{}
	if t.set.pending == nil {
		t.set.pending = make(map[*pendingTimer]struct{})
	}
	t.set.pending[p] = struct{}{}
	p.timer = t.clock.AfterFunc(at.Sub(t.clock.Now()), func() {
		t.mail.Put(func() error {
			delete(t.set.pending, p)
			if p.cancelled || t.set.quiesced {
				return nil
			}
			if t.set.suspended {
				t.set.held = append(t.set.held, heldTimer{p: p, fn: func() error { return t.attr(fn()) }})
				return nil
			}
			return t.attr(fn())
		})
	})
	// cancel runs on the task goroutine, as the mailbox action does, so the
	// flag needs no lock.
	return func() {
		p.cancelled = true
		p.timer.Stop()
		delete(t.set.pending, p)
	}
}
