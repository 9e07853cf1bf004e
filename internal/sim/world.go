// Package sim is the world of Weir's deterministic simulation tests: a
// virtual clock, a seeded source of randomness and an in-memory network
// that delays, drops and cuts messages. One goroutine drives it, and every
// effect (a timer firing, a message arriving, a connection closing) is an
// event the world runs in time order, so a run is a function of its seed:
// a seed that fails replays the same way.
//
// Components under simulation (a JobMaster, a ResourceManager,
// TaskManagers) are driven as state machines: they get their time and
// timers from the world's Clock and their messages from its Network, and
// they must not start goroutines of their own while simulated.
package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// World is the simulated time line. It is not safe for concurrent use: the
// goroutine that calls Step or Run owns it, and so do the functions it
// runs.
type World struct {
	seed   uint64
	now    time.Time
	rng    *rand.Rand
	seq    uint64
	events eventHeap
	trace  []string
}

// Epoch is where every world's clock starts, so that times in traces are
// the same from run to run.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// New returns a world at Epoch whose randomness comes from seed.
func New(seed uint64) *World {
	return &World{seed: seed, now: Epoch, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Seed is the seed the world was made with, for a failure message.
func (w *World) Seed() uint64 { return w.seed }

// Now is the virtual time.
func (w *World) Now() time.Time { return w.now }

// Rand is the world's random source; draw from it only on the driving
// goroutine, so the draws happen in the same order in every run.
func (w *World) Rand() *rand.Rand { return w.rng }

// Event is a function scheduled in the world.
type Event struct {
	at       time.Time
	seq      uint64
	f        func()
	index    int // in the heap; -1 once run or canceled
	canceled bool
}

// Cancel keeps a pending event from running; it reports whether it was
// pending.
func (e *Event) Cancel() bool {
	if e.index < 0 || e.canceled {
		return false
	}
	e.canceled = true
	return true
}

// After schedules f at Now()+d. Events due at the same time run in the
// order they were scheduled.
func (w *World) After(d time.Duration, f func()) *Event {
	if d < 0 {
		d = 0
	}
	w.seq++
	e := &Event{at: w.now.Add(d), seq: w.seq, f: f}
	heap.Push(&w.events, e)
	return e
}

// Tracef records a line of the run's trace, stamped with the virtual time.
// Two runs of one seed record the same trace.
func (w *World) Tracef(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf("%9.3fs ", w.now.Sub(Epoch).Seconds())+fmt.Sprintf(format, args...))
}

// Trace is what the run recorded so far.
func (w *World) Trace() []string { return w.trace }

// Step runs the next event, moving the clock to its time; it reports false
// when no event is pending.
func (w *World) Step() bool {
	e := w.next()
	if e == nil {
		return false
	}
	heap.Pop(&w.events)
	w.now = e.at
	e.f()
	return true
}

// next is the earliest pending event, after dropping canceled ones from
// the top of the heap; nil when none is left.
func (w *World) next() *Event {
	for w.events.Len() > 0 {
		if e := w.events[0]; !e.canceled {
			return e
		}
		heap.Pop(&w.events)
	}
	return nil
}

// ErrStalled is returned by RunUntil when nothing is left to run before
// the condition holds.
var ErrStalled = errors.New("sim: no events left")

// RunUntil runs events until done reports true, checking it after every
// event. It fails when the virtual time passes limit from now, or when no
// event is left.
func (w *World) RunUntil(done func() bool, limit time.Duration) error {
	deadline := w.now.Add(limit)
	for !done() {
		if e := w.next(); e != nil && e.at.After(deadline) {
			w.now = deadline
			return fmt.Errorf("sim: seed %d: condition not met within %v of virtual time", w.seed, limit)
		}
		if !w.Step() {
			return fmt.Errorf("sim: seed %d: %w at %v", w.seed, ErrStalled, w.now.Sub(Epoch))
		}
	}
	return nil
}

// RunFor runs every event due within d and leaves the clock at Now()+d.
func (w *World) RunFor(d time.Duration) {
	end := w.now.Add(d)
	for e := w.next(); e != nil && !e.at.After(end); e = w.next() {
		w.Step()
	}
	w.now = end
}

// Pending is the number of events scheduled and not canceled.
func (w *World) Pending() int {
	n := 0
	for _, e := range w.events {
		if !e.canceled {
			n++
		}
	}
	return n
}

type eventHeap []*Event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *eventHeap) Push(x any) {
	e := x.(*Event)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*h = old[:len(old)-1]
	return e
}
