package task

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/op"
)

// timerHarness is a task's timerSet on a fake clock; the test plays the
// task's goroutine by running the mailbox.
type timerHarness struct {
	t     *testing.T
	clock *clock.Fake
	mail  *mailbox
	set   timerSet
	ran   []string
}

func newTimerHarness(t *testing.T) *timerHarness {
	h := &timerHarness{t: t, clock: clock.NewFake(time.Unix(0, 0)), mail: newMailbox()}
	h.set.init(h.clock, h.mail)
	return h
}

func (h *timerHarness) sched() timers {
	return timers{attr: func(err error) error { return err }, set: &h.set}
}

// at schedules a callback named name at ms milliseconds.
func (h *timerHarness) at(ms int, name string) op.TimerID {
	return h.sched().Schedule(time.UnixMilli(int64(ms)), func() error {
		h.ran = append(h.ran, name)
		return nil
	})
}

// advance moves the clock by ms milliseconds and runs the mailbox; it
// returns what ran.
func (h *timerHarness) advance(ms int) []string {
	h.t.Helper()
	h.clock.Advance(time.Duration(ms) * time.Millisecond)
	if err := h.mail.runAll(); err != nil {
		h.t.Fatal(err)
	}
	ran := h.ran
	h.ran = nil
	return ran
}

func (h *timerHarness) expect(ms int, want ...string) {
	h.t.Helper()
	if got := h.advance(ms); !slices.Equal(got, want) {
		h.t.Fatalf("after %d ms more: ran %q, want %q", ms, got, want)
	}
}

func TestTimersRunInTimeThenScheduleOrder(t *testing.T) {
	h := newTimerHarness(t)
	h.at(20, "c")
	h.at(10, "a")
	h.at(10, "b")
	h.at(30, "d")
	h.expect(9)
	h.expect(1, "a", "b")
	h.at(5, "late") // already due: runs at the next ring
	h.at(25, "e")
	h.expect(0, "late")
	h.expect(15, "c", "e")
	h.expect(100, "d")
	if h.clock.Waiting() != 0 {
		t.Fatalf("%d clock timers armed with nothing queued", h.clock.Waiting())
	}
}

func TestTimersCancel(t *testing.T) {
	h := newTimerHarness(t)
	a := h.at(10, "a")
	h.at(10, "b")
	c := h.at(5, "c")
	h.sched().Cancel(c) // the earliest: the clock still rings at 5 for nothing
	h.sched().Cancel(0)
	h.expect(5)
	h.sched().Cancel(a)
	h.expect(5, "b")
	h.sched().Cancel(a) // ran or cancelled: nothing
	h.at(12, "d")
	h.expect(2, "d")
}

// A callback that schedules itself again at once runs once per ring, not
// in a loop within one round.
func TestTimersRescheduleAtOnceWaitsForTheNextRound(t *testing.T) {
	h := newTimerHarness(t)
	var tick func() error
	n := 0
	tick = func() error {
		n++
		h.sched().Schedule(h.clock.Now(), tick)
		return nil
	}
	h.sched().Schedule(time.UnixMilli(1), tick)
	for i := 1; i <= 3; i++ {
		h.advance(1)
		if n != i {
			t.Fatalf("after %d rounds the callback ran %d times", i, n)
		}
	}
}

func TestTimersSuspendHoldsDueCallbacksForResume(t *testing.T) {
	h := newTimerHarness(t)
	h.at(10, "a")
	b := h.at(10, "b")
	h.at(11, "c")
	h.at(50, "later")
	h.set.suspend()
	h.expect(20)
	h.sched().Cancel(b) // held: dropped
	h.at(15, "d")       // due, and held at the next ring
	h.expect(0)
	if err := h.set.resume(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "c", "d"}; !slices.Equal(h.ran, want) {
		t.Fatalf("resume ran %q, want %q", h.ran, want)
	}
	h.ran = nil
	h.expect(30, "later")
}

// A held callback may cancel one held after it.
func TestTimersResumeHonoursCancelByAnEarlierCallback(t *testing.T) {
	h := newTimerHarness(t)
	var second op.TimerID
	h.sched().Schedule(time.UnixMilli(1), func() error {
		h.ran = append(h.ran, "first")
		h.sched().Cancel(second)
		return nil
	})
	second = h.at(2, "second")
	h.set.suspend()
	h.expect(5)
	if err := h.set.resume(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"first"}; !slices.Equal(h.ran, want) {
		t.Fatalf("resume ran %q, want %q", h.ran, want)
	}
}

func TestTimersStopAll(t *testing.T) {
	h := newTimerHarness(t)
	h.at(10, "a")
	h.set.stopAll()
	h.expect(20)
	if id := h.at(30, "b"); id != 0 {
		t.Fatalf("Schedule after stopAll = %d, want 0", id)
	}
	h.expect(20)
	if h.clock.Waiting() != 0 {
		t.Fatalf("%d clock timers armed after stopAll", h.clock.Waiting())
	}
}

// An error from a callback goes through the operator's attribution, and
// the callbacks after it in the round do not run.
func TestTimersErrorIsAttributed(t *testing.T) {
	h := newTimerHarness(t)
	boom := errors.New("boom")
	sched := timers{attr: func(err error) error {
		if err == nil {
			return nil
		}
		return fmt.Errorf("operator x: %w", err)
	}, set: &h.set}
	sched.Schedule(time.UnixMilli(1), func() error { return boom })
	h.at(1, "after")
	h.clock.Advance(time.Millisecond)
	err := h.mail.runAll()
	if !errors.Is(err, boom) || err.Error() != "operator x: boom" {
		t.Fatalf("runAll = %v, want the attributed boom", err)
	}
	if len(h.ran) != 0 {
		t.Fatalf("ran %q after the failing callback", h.ran)
	}
}

// Scheduling and cancelling on a wall clock allocates nothing once the
// queue has grown: no runtime timer or closure per callback.
func TestTimersScheduleAllocatesNothing(t *testing.T) {
	var set timerSet
	set.init(clock.Real{}, newMailbox())
	defer set.stopAll()
	sched := timers{attr: func(err error) error { return err }, set: &set}
	fn := func() error { return nil }
	now := time.Now()
	sched.Schedule(now.Add(time.Hour), fn)
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		i++
		// Each earlier than the last: the clock timer is reset every time.
		a := sched.Schedule(now.Add(time.Hour-time.Duration(i)*time.Millisecond), fn)
		b := sched.Schedule(now.Add(2*time.Hour), fn)
		sched.Cancel(b)
		sched.Cancel(a)
	})
	if allocs != 0 {
		t.Fatalf("Schedule and Cancel allocated %.1f objects per run", allocs)
	}
}

// deafClock tells a fake clock's time, but its timers never ring: a
// runtime timer late to fire.
type deafClock struct{ *clock.Fake }

func (c deafClock) AfterFunc(time.Duration, func()) clock.Timer { return deafTimer{} }

type deafTimer struct{}

func (deafTimer) Stop() bool               { return true }
func (deafTimer) Reset(time.Duration) bool { return true }

// The task's loop runs due callbacks itself when the clock timer has not
// rung: fireIfDue on each turn.
func TestTimersFireIfDueWithoutTheClockTimer(t *testing.T) {
	h := newTimerHarness(t)
	h.set.init(deafClock{h.clock}, h.mail)
	h.at(10, "a")
	h.at(20, "b")
	fire := func() []string {
		t.Helper()
		if err := h.set.fireIfDue(); err != nil {
			t.Fatal(err)
		}
		ran := h.ran
		h.ran = nil
		return ran
	}
	h.clock.Advance(9 * time.Millisecond)
	if got := fire(); len(got) != 0 {
		t.Fatalf("at 9 ms ran %q", got)
	}
	h.clock.Advance(15 * time.Millisecond)
	if got, want := fire(), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("at 24 ms ran %q, want %q", got, want)
	}
	if got := fire(); len(got) != 0 {
		t.Fatalf("a second turn ran %q", got)
	}
}
