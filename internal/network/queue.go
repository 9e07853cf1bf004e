package network

// Priority events (Flink's priority events): the barrier of an unaligned
// checkpoint and a cancel marker do not wait behind the buffers queued
// before them. They overtake every buffer and non-priority event queued in
// the subpartition (output side) and in the input channel (input side), and
// they need no credit. Among themselves they keep their order. The data
// buffers a checkpoint barrier overtook are the in-flight data of that
// checkpoint (its channel state): the producer records those it overtook in
// its subpartitions, the consumer those it overtook in its input channels;
// both are still processed after the barrier, as in Flink.

// IsPriority reports whether e overtakes the items queued before it.
func IsPriority(e Event) bool {
	switch e := e.(type) {
	case CheckpointBarrier:
		return e.Unaligned
	case CancelCheckpointMarker, ChannelFailed:
		return true
	}
	return false
}

// itemQueue is a FIFO of items in which priority events go ahead of every
// non-priority item but behind the priority events queued before them.
// Pure: no locks, no goroutines; both ends of a channel use it.
//
// The items are buf[head:]. A queue that empties starts again at the
// front of its array, and one that fills its array with consumed items
// moves the queued ones to the front, so that a channel that drains
// after every buffer (a lightly loaded job) does not allocate an array
// per buffer.
type itemQueue struct {
	buf  []Item
	head int
	// priority is how many items at the head are priority events.
	priority int
	// data counts the data buffers queued (the rest are events).
	data int
}

// keepItems is the largest array an emptied queue keeps; a larger one,
// left by a burst, goes.
const keepItems = 64

// push appends it, or inserts it after the queued priority events when it
// is one. It returns how many queued data buffers a priority event
// overtook: they are the first ones behind it.
func (q *itemQueue) push(it Item) (overtaken int) {
	if it.Event == nil {
		q.data++
	}
	if q.head > 0 && len(q.buf) == cap(q.buf) && q.head >= len(q.buf)/2 {
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf, q.head = q.buf[:n], 0
	}
	if it.Event == nil || !IsPriority(it.Event) {
		q.buf = append(q.buf, it)
		return 0
	}
	at := q.head + q.priority
	q.buf = append(q.buf, Item{})
	copy(q.buf[at+1:], q.buf[at:])
	q.buf[at] = it
	q.priority++
	return q.data
}

// pop removes and returns the head.
func (q *itemQueue) pop() (Item, bool) {
	if q.head == len(q.buf) {
		return Item{}, false
	}
	it := q.buf[q.head]
	q.buf[q.head] = Item{}
	q.head++
	if q.priority > 0 {
		q.priority--
	}
	if it.Event == nil {
		q.data--
	}
	if q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
		if cap(q.buf) > keepItems {
			q.buf = nil // let the burst's array go
		}
	}
	return it, true
}

// headIsPriority reports whether the head is a priority event.
func (q *itemQueue) headIsPriority() bool { return q.priority > 0 }

// len is the number of items queued.
func (q *itemQueue) len() int { return len(q.buf) - q.head }

// dataAfterPriority returns the first n data buffers behind the priority
// events, in order: the buffers a priority event at the head overtook.
func (q *itemQueue) dataAfterPriority(n int) [][]byte {
	var out [][]byte
	for _, it := range q.buf[q.head+q.priority:] {
		if len(out) == n {
			break
		}
		if it.Event == nil {
			out = append(out, it.Buf)
		}
	}
	return out
}

// clear drops everything.
func (q *itemQueue) clear() { *q = itemQueue{} }
