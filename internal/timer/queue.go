package timer

import (
	"iter"
	"slices"
)

// queue is a deduplicating min-heap of timers with O(log n) delete.
//
// Timers live in a slab (slots) and never move while pending; the heap holds
// small items that carry the ordering fields, so sifting compares and swaps
// within one array and touches a slot only to record its new heap position.
// index maps a timer to its slot, for deduplication and delete; it is the
// only place a timer's key and namespace are hashed.
type queue[K comparable, N comparable] struct {
	heap  []item
	slots []slot[K, N]
	free  []int32 // slots not in use
	index map[Timer[K, N]]int32
	seq   uint64 // registration counter, breaks timestamp ties
}

// item is a heap element: the ordering key of a timer and its slot.
type item struct {
	ts   int64
	seq  uint64
	slot int32
}

// slot holds one pending timer and where its item is in the heap.
type slot[K comparable, N comparable] struct {
	timer Timer[K, N]
	pos   int
}

func (a item) less(b item) bool {
	return a.ts < b.ts || (a.ts == b.ts && a.seq < b.seq)
}

func (q *queue[K, N]) len() int { return len(q.heap) }

// peek returns the earliest timestamp, if any timer is pending.
func (q *queue[K, N]) peek() (int64, bool) {
	if len(q.heap) == 0 {
		return 0, false
	}
	return q.heap[0].ts, true
}

// push adds t unless it is already pending and reports whether it did.
func (q *queue[K, N]) push(t Timer[K, N]) bool {
	if _, ok := q.index[t]; ok {
		return false
	}
	if q.index == nil {
		q.index = make(map[Timer[K, N]]int32)
	}
	var s int32
	if n := len(q.free); n > 0 {
		s = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		s = int32(len(q.slots))
		q.slots = append(q.slots, slot[K, N]{})
	}
	q.slots[s] = slot[K, N]{timer: t, pos: len(q.heap)}
	q.index[t] = s
	q.heap = append(q.heap, item{ts: t.Timestamp, seq: q.seq, slot: s})
	q.seq++
	q.up(len(q.heap) - 1)
	return true
}

// remove deletes t if it is pending and reports whether it was.
func (q *queue[K, N]) remove(t Timer[K, N]) bool {
	s, ok := q.index[t]
	if !ok {
		return false
	}
	q.removeAt(q.slots[s].pos)
	return true
}

// pop removes and returns the earliest timer. The queue must not be empty.
func (q *queue[K, N]) pop() Timer[K, N] {
	t := q.slots[q.heap[0].slot].timer
	q.removeAt(0)
	return t
}

// removeAt removes the heap item at i and frees its slot.
func (q *queue[K, N]) removeAt(i int) {
	s := q.heap[i].slot
	last := len(q.heap) - 1
	if i != last {
		q.swap(i, last)
	}
	q.heap = q.heap[:last]
	if i != last && !q.down(i) {
		q.up(i)
	}
	delete(q.index, q.slots[s].timer)
	q.slots[s] = slot[K, N]{} // drop references held by the key and namespace
	q.free = append(q.free, s)
}

func (q *queue[K, N]) swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	q.slots[q.heap[i].slot].pos = i
	q.slots[q.heap[j].slot].pos = j
}

func (q *queue[K, N]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.heap[i].less(q.heap[p]) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

// down sifts the item at i towards the leaves and reports whether it moved.
func (q *queue[K, N]) down(i int) bool {
	start, n := i, len(q.heap)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && q.heap[r].less(q.heap[c]) {
			c = r
		}
		if !q.heap[c].less(q.heap[i]) {
			break
		}
		q.swap(i, c)
		i = c
	}
	return i > start
}

// all yields the pending timers in firing order. It sorts a copy when the
// sequence is ranged over, so the queue may change during the iteration
// (the iteration does not see the change).
func (q *queue[K, N]) all() iter.Seq[Timer[K, N]] {
	return func(yield func(Timer[K, N]) bool) {
		items := slices.Clone(q.heap)
		slices.SortFunc(items, func(a, b item) int {
			if a.less(b) {
				return -1
			}
			return 1 // no two items are equal: seq is unique
		})
		timers := make([]Timer[K, N], len(items))
		for i, it := range items {
			timers[i] = q.slots[it.slot].timer
		}
		for _, t := range timers {
			if !yield(t) {
				return
			}
		}
	}
}
