package task

import (
	"time"

	"github.com/weir-engine/weir/internal/op"
)

// timerQueue holds a task's pending processing-time callbacks, earliest
// first: a binary heap ordered by due time, then by the order they were
// scheduled in. It is a plain value with no clock and no goroutine; the
// timerSet drives it.
type timerQueue struct {
	heap []timerEntry
	// last is the id of the latest entry; ids start at 1, so the zero
	// TimerID names no timer.
	last op.TimerID
}

// A timerEntry is one scheduled callback and the operator's attribution of
// the error it returns.
type timerEntry struct {
	at   time.Time
	id   op.TimerID
	fn   func() error
	attr func(error) error
}

func (e timerEntry) before(o timerEntry) bool {
	if e.at.Equal(o.at) {
		return e.id < o.id
	}
	return e.at.Before(o.at)
}

// push adds fn, due at at, and returns its id.
func (q *timerQueue) push(at time.Time, fn func() error, attr func(error) error) op.TimerID {
	q.last++
	q.heap = append(q.heap, timerEntry{at: at, id: q.last, fn: fn, attr: attr})
	q.up(len(q.heap) - 1)
	return q.last
}

// peek returns the earliest entry.
func (q *timerQueue) peek() (timerEntry, bool) {
	if len(q.heap) == 0 {
		return timerEntry{}, false
	}
	return q.heap[0], true
}

// popDue removes and returns the earliest entry if it is due at now and was
// scheduled no later than the entry upTo; entries scheduled after upTo wait,
// so that a callback that schedules itself again at once cannot keep a
// single round of due timers going.
func (q *timerQueue) popDue(now time.Time, upTo op.TimerID) (timerEntry, bool) {
	if len(q.heap) == 0 || q.heap[0].at.After(now) || q.heap[0].id > upTo {
		return timerEntry{}, false
	}
	return q.removeAt(0), true
}

// remove drops the entry id; it reports whether it was pending.
func (q *timerQueue) remove(id op.TimerID) bool {
	// A task has a handful of timers (a flush, a source's wake, a
	// watermark tick, a keyed operator's next timer): a scan is cheaper
	// than an index kept up to date on every move.
	for i := range q.heap {
		if q.heap[i].id == id {
			q.removeAt(i)
			return true
		}
	}
	return false
}

func (q *timerQueue) len() int { return len(q.heap) }

func (q *timerQueue) clear() {
	clear(q.heap)
	q.heap = q.heap[:0]
}

func (q *timerQueue) removeAt(i int) timerEntry {
	e := q.heap[i]
	n := len(q.heap) - 1
	q.heap[i] = q.heap[n]
	q.heap[n] = timerEntry{}
	q.heap = q.heap[:n]
	if i < n {
		q.down(i)
		q.up(i)
	}
	return e
}

func (q *timerQueue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.heap[i].before(q.heap[p]) {
			return
		}
		q.heap[i], q.heap[p] = q.heap[p], q.heap[i]
		i = p
	}
}

func (q *timerQueue) down(i int) {
	n := len(q.heap)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && q.heap[c+1].before(q.heap[c]) {
			c++
		}
		if !q.heap[c].before(q.heap[i]) {
			return
		}
		q.heap[i], q.heap[c] = q.heap[c], q.heap[i]
		i = c
	}
}
