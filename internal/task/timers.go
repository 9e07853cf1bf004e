package task

import (
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/op"
)

// timerSet runs the processing-time callbacks of a task's operators on the
// task's goroutine. They wait in one queue, and one clock timer, armed for
// the earliest, puts a round of due callbacks into the mailbox: scheduling a
// callback allocates nothing once the queue has grown, where a clock timer
// per callback cost a runtime timer and its closures each time (a source
// held to a rate schedules one per wait, a 1 ms buffer timeout a thousand a
// second). Only the task's goroutine touches the set, except ring, which
// reads fields set once by init.
type timerSet struct {
	clock clock.Clock
	mail  *mailbox
	queue timerQueue
	// wake is the clock timer, created at the first arming and reset after;
	// armedAt is when it rings, while armed.
	wake    clock.Timer
	armed   bool
	armedAt time.Time
	// fire and ring are the method values the clock timer and the mailbox
	// call, made once.
	fire     func() error
	ring     func()
	quiesced bool
	// suspended holds back due callbacks while the task waits for a
	// stop-with-savepoint to complete: nothing may be emitted after the
	// savepoint's barrier. held keeps them, in order, for resume.
	suspended bool
	held      []timerEntry
}

func (s *timerSet) init(c clock.Clock, mail *mailbox) {
	s.clock, s.mail = c, mail
	s.fire = s.fireDue
	s.ring = s.putFire
}

// schedule queues fn at at and arms the clock timer if fn is now the
// earliest.
func (s *timerSet) schedule(at time.Time, fn func() error, attr func(error) error) op.TimerID {
	if s.quiesced {
		return 0
	}
	id := s.queue.push(at, fn, attr)
	s.arm()
	return id
}

// cancel drops a pending or held callback. The clock timer stays armed: if
// it rings for nothing, the round finds nothing due and re-arms.
func (s *timerSet) cancel(id op.TimerID) {
	if id == 0 || s.queue.remove(id) {
		return
	}
	for i, h := range s.held {
		if h.id == id {
			s.held = append(s.held[:i], s.held[i+1:]...)
			return
		}
	}
}

// arm sets the clock timer for the earliest callback unless it already
// rings no later.
func (s *timerSet) arm() {
	head, ok := s.queue.peek()
	if !ok || (s.armed && !head.at.Before(s.armedAt)) {
		return
	}
	s.armed, s.armedAt = true, head.at
	d := head.at.Sub(s.clock.Now())
	if s.wake == nil {
		s.wake = s.clock.AfterFunc(d, s.ring)
		return
	}
	s.wake.Reset(d)
}

// putFire runs on the clock's goroutine.
func (s *timerSet) putFire() { s.mail.Put(s.fire) }

// fireIfDue runs the due callbacks if the clock timer is late to ring. The
// task's loop calls it on every turn: Go keeps a runtime timer in the heap
// of the processor (P) it was set on, and while that P is idle and the
// others are busy handing work from goroutine to goroutine, its timers can
// ring milliseconds late (5 ms in traces of the latency benchmark, with
// the task running all along). A busy task notices its due timers itself.
func (s *timerSet) fireIfDue() error {
	if !s.armed || s.clock.Now().Before(s.armedAt) {
		return nil
	}
	return s.fireDue()
}

// fireDue runs, in order, the callbacks due now that were scheduled before
// the round began, then arms the clock timer for the next.
func (s *timerSet) fireDue() error {
	s.armed = false
	if s.quiesced {
		return nil
	}
	now := s.clock.Now()
	upTo := s.queue.last
	for {
		e, ok := s.queue.popDue(now, upTo)
		if !ok {
			break
		}
		if s.suspended {
			s.held = append(s.held, e)
			continue
		}
		if err := e.attr(e.fn()); err != nil {
			return err
		}
		if s.quiesced {
			return nil
		}
	}
	s.arm()
	return nil
}

func (s *timerSet) stopAll() {
	s.quiesced = true
	if s.wake != nil {
		s.wake.Stop()
	}
	s.armed = false
	s.queue.clear()
	s.held = nil
}

// suspend holds back every callback that falls due from now on.
func (s *timerSet) suspend() { s.suspended = true }

// resume runs, in order, the callbacks held back since suspend that were
// not cancelled meanwhile.
func (s *timerSet) resume() error {
	s.suspended = false
	// One at a time, so that a callback may cancel a later one.
	for len(s.held) > 0 && !s.quiesced {
		h := s.held[0]
		s.held = s.held[1:]
		if err := h.attr(h.fn()); err != nil {
			return err
		}
	}
	s.held = nil
	return nil
}

// timers implements op.TimerScheduler for one operator on the task's
// timerSet: a due callback runs on the task's goroutine, and an error it
// returns is attributed to the operator. Once the set is quiesced (the
// operators finished), no callback runs any more.
type timers struct {
	attr func(error) error
	set  *timerSet
}

func (t timers) Now() time.Time { return t.set.clock.Now() }

func (t timers) Schedule(at time.Time, fn func() error) op.TimerID {
	return t.set.schedule(at, fn, t.attr)
}

func (t timers) Cancel(id op.TimerID) { t.set.cancel(id) }
