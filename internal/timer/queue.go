package timer

import (
	"iter"
	"slices"
)

// queue is a deduplicating queue of timers ordered by timestamp and, for
// equal timestamps, by registration order, with O(1) delete.
//
// Timers come in bursts at few timestamps (every key's timer at a window's
// end), so the queue groups them by timestamp: a bucket per pending
// timestamp holds its timers' slots in registration order, and a binary
// min-heap orders the buckets. Registering at a timestamp that has a bucket
// appends to it, and firing takes the front of the earliest bucket: no
// sifting per timer, only per timestamp.
//
// Timers live in a slab (slots) and never move while pending. index maps a
// timer to its slot, for deduplication and delete; it is the only place a
// timer's key and namespace are hashed. Deleting a timer frees its slot and
// leaves a stale entry in its bucket (recognised by the slot's generation),
// which firing skips; a bucket is compacted when most of it is stale, and
// dropped as soon as it holds no pending timer.
type queue[K comparable, N comparable] struct {
	times   []*bucket                // min-heap of the buckets by timestamp
	buckets map[int64]*bucket        // timestamp -> its bucket
	last    *bucket                  // the bucket of the latest push, if still in use
	spare   []*bucket                // dropped buckets, for reuse
	slots   []*[slotChunk]slot[K, N] // the slab, in chunks that never move
	used    int32                    // slots handed out so far
	free    []int32                  // slots not in use
	index   map[Timer[K, N]]int32
}

// bucket holds the timers pending at one timestamp, in registration order,
// from head on; entries before head have fired.
type bucket struct {
	ts      int64
	entries []entry
	head    int
	live    int // pending timers among entries[head:]
	pos     int // index in the heap
}

// entry is a timer's place in its bucket: the slot, and the slot's
// generation when the timer was registered (a later generation means the
// timer was deleted).
type entry struct {
	slot int32
	gen  uint32
}

// slotChunk is the number of slots allocated at once. A slab of chunks
// grows without copying the slots it holds: a burst of a hundred thousand
// timers (every word's timer at the end of time) spent most of its time in
// growing one slice.
const slotChunk = 1024

// slot holds one pending timer, its bucket, and a generation counted up
// each time the slot is freed.
type slot[K comparable, N comparable] struct {
	timer Timer[K, N]
	b     *bucket
	gen   uint32
}

func (q *queue[K, N]) len() int { return len(q.index) }

// slot returns slot s of the slab.
func (q *queue[K, N]) slot(s int32) *slot[K, N] {
	return &q.slots[uint32(s)/slotChunk][uint32(s)%slotChunk]
}

// peek returns the earliest timestamp, if any timer is pending. Buckets
// never stay in the heap without a pending timer, so it is the earliest
// bucket's.
func (q *queue[K, N]) peek() (int64, bool) {
	if len(q.times) == 0 {
		return 0, false
	}
	return q.times[0].ts, true
}

// push adds t unless it is already pending and reports whether it did.
func (q *queue[K, N]) push(t Timer[K, N]) bool {
	if _, ok := q.index[t]; ok {
		return false
	}
	if q.index == nil {
		q.index = make(map[Timer[K, N]]int32)
		q.buckets = make(map[int64]*bucket)
	}
	var s int32
	if n := len(q.free); n > 0 {
		s = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		s = q.used
		if int(s) == len(q.slots)*slotChunk {
			q.slots = append(q.slots, new([slotChunk]slot[K, N]))
		}
		q.used++
	}
	b := q.bucketAt(t.Timestamp)
	sl := q.slot(s)
	sl.timer, sl.b = t, b
	b.entries = append(b.entries, entry{slot: s, gen: sl.gen})
	b.live++
	q.index[t] = s
	return true
}

// bucketAt returns the bucket of ts, adding one if there is none.
func (q *queue[K, N]) bucketAt(ts int64) *bucket {
	if b := q.last; b != nil && b.ts == ts {
		return b
	}
	b := q.buckets[ts]
	if b == nil {
		if n := len(q.spare); n > 0 {
			b = q.spare[n-1]
			q.spare = q.spare[:n-1]
		} else {
			b = &bucket{}
		}
		b.ts = ts
		q.buckets[ts] = b
		b.pos = len(q.times)
		q.times = append(q.times, b)
		q.up(b.pos)
	}
	q.last = b
	return b
}

// remove deletes t if it is pending and reports whether it was.
func (q *queue[K, N]) remove(t Timer[K, N]) bool {
	s, ok := q.index[t]
	if !ok {
		return false
	}
	b := q.slot(s).b
	q.freeSlot(s)
	b.live--
	switch {
	case b.live == 0:
		q.drop(b)
	case len(b.entries)-b.head > 2*b.live+16:
		q.compact(b)
	}
	return true
}

// pop removes and returns the earliest timer. The queue must not be empty.
func (q *queue[K, N]) pop() Timer[K, N] {
	b := q.times[0]
	for {
		e := b.entries[b.head]
		b.head++
		if sl := q.slot(e.slot); sl.gen == e.gen && sl.b == b {
			t := sl.timer
			q.freeSlot(e.slot)
			if b.live--; b.live == 0 {
				q.drop(b)
			}
			return t
		}
	}
}

// freeSlot forgets the timer in slot s.
func (q *queue[K, N]) freeSlot(s int32) {
	sl := q.slot(s)
	delete(q.index, sl.timer)
	*sl = slot[K, N]{gen: sl.gen + 1} // drop references held by the key and namespace
	q.free = append(q.free, s)
}

// compact drops the stale and fired entries of b.
func (q *queue[K, N]) compact(b *bucket) {
	kept := b.entries[:0]
	for _, e := range b.entries[b.head:] {
		if sl := q.slot(e.slot); sl.gen == e.gen && sl.b == b {
			kept = append(kept, e)
		}
	}
	clear(b.entries[len(kept):])
	b.entries, b.head = kept, 0
}

// drop removes b, which holds no pending timer, from the heap and keeps it
// for reuse.
func (q *queue[K, N]) drop(b *bucket) {
	i, last := b.pos, len(q.times)-1
	if i != last {
		q.swap(i, last)
	}
	q.times[last] = nil
	q.times = q.times[:last]
	if i != last && !q.down(i) {
		q.up(i)
	}
	delete(q.buckets, b.ts)
	if q.last == b {
		q.last = nil
	}
	b.entries, b.head, b.live = b.entries[:0], 0, 0
	q.spare = append(q.spare, b)
}

func (q *queue[K, N]) swap(i, j int) {
	q.times[i], q.times[j] = q.times[j], q.times[i]
	q.times[i].pos = i
	q.times[j].pos = j
}

func (q *queue[K, N]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if q.times[i].ts >= q.times[p].ts {
			return
		}
		q.swap(i, p)
		i = p
	}
}

// down sifts the bucket at i towards the leaves and reports whether it
// moved.
func (q *queue[K, N]) down(i int) bool {
	start, n := i, len(q.times)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && q.times[r].ts < q.times[c].ts {
			c = r
		}
		if q.times[c].ts >= q.times[i].ts {
			break
		}
		q.swap(i, c)
		i = c
	}
	return i > start
}

// all yields the pending timers in firing order. It copies them when the
// sequence is ranged over, so the queue may change during the iteration
// (the iteration does not see the change).
func (q *queue[K, N]) all() iter.Seq[Timer[K, N]] {
	return func(yield func(Timer[K, N]) bool) {
		bs := slices.Clone(q.times)
		slices.SortFunc(bs, func(a, b *bucket) int {
			if a.ts < b.ts {
				return -1
			}
			return 1 // no two buckets have the same timestamp
		})
		timers := make([]Timer[K, N], 0, len(q.index))
		for _, b := range bs {
			for _, e := range b.entries[b.head:] {
				if sl := q.slot(e.slot); sl.gen == e.gen && sl.b == b {
					timers = append(timers, sl.timer)
				}
			}
		}
		for _, t := range timers {
			if !yield(t) {
				return
			}
		}
	}
}
