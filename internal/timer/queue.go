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
// Timers live in a slab (slots) and never move while pending. Each bucket
// finds its own timers by key and namespace, for deduplication and delete:
// a small bucket by a scan of its entries, a larger one by an index it
// builds once it holds more than smallBucket entries. A timer leaves the
// index lazily: firing or deleting it frees its slot, which counts the
// slot's generation up, and an index entry whose generation is behind its
// slot's is stale. The index is cleared at once when its bucket is dropped,
// so firing a timer touches no map. Deleting a timer leaves a stale entry
// in its bucket, which firing skips; a bucket is compacted when most of it
// is stale, and dropped as soon as it holds no pending timer.
type queue[K comparable, N comparable] struct {
	times   []*bucket[K, N]          // min-heap of the buckets by timestamp
	buckets map[int64]*bucket[K, N]  // timestamp -> its bucket
	last    *bucket[K, N]            // the bucket of the latest push, if still in use
	spare   []*bucket[K, N]          // dropped buckets, for reuse
	slots   []*[slotChunk]slot[K, N] // the slab, in chunks that never move
	used    int32                    // slots handed out so far
	free    []int32                  // slots not in use
	n       int                      // pending timers
}

// bucket holds the timers pending at one timestamp, in registration order,
// from head on; entries before head have fired.
type bucket[K comparable, N comparable] struct {
	ts      int64
	entries []entry
	head    int
	live    int // pending timers among entries[head:]
	pos     int // index in the heap
	// byKey, while every timer of the bucket has namespace ns (oneNS:
	// a window's end, where every key's timer is for that window), or
	// else index, finds a pending timer's entry by key and namespace
	// once the bucket outgrew a scan (indexed); their entries may be
	// stale. A key alone hashes faster than a key and a namespace.
	byKey   map[K]entry
	index   map[keyNS[K, N]]entry
	ns      N
	oneNS   bool
	indexed bool
	// peak is the most entries index held in any use of this bucket: a
	// reused bucket whose index grew far beyond its use drops the index
	// instead of clearing its room at every drop.
	peak int
}

// keyNS is what tells two timers of one bucket apart.
type keyNS[K comparable, N comparable] struct {
	key K
	ns  N
}

// smallBucket is the most entries a bucket searches by a scan; past it,
// the bucket builds its index. A scan of a few entries costs less than a
// map lookup, and most timestamps of a job whose timers are spread out
// (an auction's expiry) hold one timer.
const smallBucket = 8

// entry is a timer's place in its bucket: the slot, and the slot's
// generation when the timer was registered (a later generation means the
// timer fired or was deleted).
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
	b     *bucket[K, N]
	gen   uint32
}

func (q *queue[K, N]) len() int { return q.n }

// slot returns slot s of the slab.
func (q *queue[K, N]) slot(s int32) *slot[K, N] {
	return &q.slots[uint32(s)/slotChunk][uint32(s)%slotChunk]
}

// pending reports whether e is a pending timer of b.
func (q *queue[K, N]) pending(e entry, b *bucket[K, N]) bool {
	sl := q.slot(e.slot)
	return sl.gen == e.gen && sl.b == b
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

// find returns the entry of the pending timer of b with key and namespace
// kn, if there is one.
func (q *queue[K, N]) find(b *bucket[K, N], kn keyNS[K, N]) (entry, bool) {
	if b.indexed {
		var e entry
		var ok bool
		switch {
		case !b.oneNS:
			e, ok = b.index[kn]
		case kn.ns == b.ns:
			e, ok = b.byKey[kn.key]
		}
		return e, ok && q.pending(e, b)
	}
	for _, e := range b.entries[b.head:] {
		if sl := q.slot(e.slot); sl.gen == e.gen && sl.b == b && sl.timer.Key == kn.key && sl.timer.Namespace == kn.ns {
			return e, true
		}
	}
	return entry{}, false
}

// push adds t unless it is already pending and reports whether it did.
func (q *queue[K, N]) push(t Timer[K, N]) bool {
	if q.buckets == nil {
		q.buckets = make(map[int64]*bucket[K, N])
	}
	b, kn := q.bucketAt(t.Timestamp), keyNS[K, N]{t.Key, t.Namespace}
	if b.live > 0 {
		if _, ok := q.find(b, kn); ok {
			return false
		}
	}
	switch {
	case len(b.entries) == 0:
		b.ns, b.oneNS = t.Namespace, true
	case b.oneNS && t.Namespace != b.ns:
		b.oneNS = false
		if b.indexed {
			clear(b.byKey)
			q.buildIndex(b) // by key and namespace now
		}
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
	sl := q.slot(s)
	sl.timer, sl.b = t, b
	e := entry{slot: s, gen: sl.gen}
	b.entries = append(b.entries, e)
	b.live++
	q.n++
	switch {
	case b.indexed && b.oneNS:
		b.byKey[t.Key] = e
	case b.indexed:
		b.index[kn] = e
	case len(b.entries)-b.head > smallBucket:
		q.buildIndex(b)
	}
	return true
}

// buildIndex indexes the pending timers of b, which outgrew a scan: by
// key while they share one namespace, else by key and namespace.
func (q *queue[K, N]) buildIndex(b *bucket[K, N]) {
	switch {
	case b.oneNS && b.byKey == nil:
		b.byKey = make(map[K]entry, 2*smallBucket)
	case !b.oneNS && b.index == nil:
		b.index = make(map[keyNS[K, N]]entry, 2*smallBucket)
	}
	for _, e := range b.entries[b.head:] {
		if sl := q.slot(e.slot); sl.gen == e.gen && sl.b == b {
			if b.oneNS {
				b.byKey[sl.timer.Key] = e
			} else {
				b.index[keyNS[K, N]{sl.timer.Key, sl.timer.Namespace}] = e
			}
		}
	}
	b.indexed = true
}

// bucketAt returns the bucket of ts, adding one if there is none.
func (q *queue[K, N]) bucketAt(ts int64) *bucket[K, N] {
	if b := q.last; b != nil && b.ts == ts {
		return b
	}
	b := q.buckets[ts]
	if b == nil {
		if n := len(q.spare); n > 0 {
			b = q.spare[n-1]
			q.spare = q.spare[:n-1]
		} else {
			b = &bucket[K, N]{}
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
	b := q.last
	if b == nil || b.ts != t.Timestamp {
		if b = q.buckets[t.Timestamp]; b == nil {
			return false
		}
	}
	kn := keyNS[K, N]{t.Key, t.Namespace}
	e, ok := q.find(b, kn)
	if !ok {
		return false
	}
	switch {
	case b.indexed && b.oneNS:
		delete(b.byKey, kn.key)
	case b.indexed:
		delete(b.index, kn)
	}
	q.freeSlot(e.slot)
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

// freeSlot forgets the timer in slot s. Its bucket's index keeps an entry
// for it, which the slot's new generation makes stale.
func (q *queue[K, N]) freeSlot(s int32) {
	sl := q.slot(s)
	*sl = slot[K, N]{gen: sl.gen + 1} // drop references held by the key and namespace
	q.free = append(q.free, s)
	q.n--
}

// compact drops the stale and fired entries of b. Its index stays right:
// it points at slots, not at places in entries.
func (q *queue[K, N]) compact(b *bucket[K, N]) {
	kept := b.entries[:0]
	for _, e := range b.entries[b.head:] {
		if q.pending(e, b) {
			kept = append(kept, e)
		}
	}
	clear(b.entries[len(kept):])
	b.entries, b.head = kept, 0
}

// drop removes b, which holds no pending timer, from the heap and keeps it
// for reuse.
func (q *queue[K, N]) drop(b *bucket[K, N]) {
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
	if b.indexed {
		b.peak = max(b.peak, len(b.index), len(b.byKey))
		if max(len(b.index), len(b.byKey))*4 < b.peak {
			b.index, b.byKey, b.peak = nil, nil, 0
		} else {
			clear(b.index) // also drops references held by keys and namespaces
			clear(b.byKey)
		}
		b.indexed = false
	}
	var zero N
	b.entries, b.head, b.live, b.ns, b.oneNS = b.entries[:0], 0, 0, zero, false
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
		slices.SortFunc(bs, func(a, b *bucket[K, N]) int {
			if a.ts < b.ts {
				return -1
			}
			return 1 // no two buckets have the same timestamp
		})
		timers := make([]Timer[K, N], 0, q.n)
		for _, b := range bs {
			for _, e := range b.entries[b.head:] {
				if q.pending(e, b) {
					timers = append(timers, q.slot(e.slot).timer)
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
