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
