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
type itemQueue struct {
	items []Item
	// priority is how many items at the head are priority events.
	priority int
	// data counts the data buffers queued (the rest are events).
	data int
}

// push appends it, or inserts it after the queued priority events when it
// is one. It returns how many queued data buffers a priority event
// overtook: they are the first ones behind it.
func (q *itemQueue) push(it Item) (overtaken int) {
	if it.Event == nil {
		q.data++
	}
	if it.Event == nil || !IsPriority(it.Event) {
		q.items = append(q.items, it)
		return 0
	}
	q.items = append(q.items, Item{})
	copy(q.items[q.priority+1:], q.items[q.priority:])
	q.items[q.priority] = it
	q.priority++
	return q.data
}

// pop removes and returns the head.
func (q *itemQueue) pop() (Item, bool) {
	if len(q.items) == 0 {
		return Item{}, false
	}
	it := q.items[0]
	q.items[0] = Item{}
	q.items = q.items[1:]
	if q.priority > 0 {
		q.priority--
	}
	if it.Event == nil {
		q.data--
	}
	if len(q.items) == 0 {
		q.items = nil // let the backing array go
	}
	return it, true
}

// headIsPriority reports whether the head is a priority event.
func (q *itemQueue) headIsPriority() bool { return q.priority > 0 }

// len is the number of items queued.
func (q *itemQueue) len() int { return len(q.items) }

// dataAfterPriority returns the first n data buffers behind the priority
// events, in order: the buffers a priority event at the head overtook.
func (q *itemQueue) dataAfterPriority(n int) [][]byte {
	var out [][]byte
	for _, it := range q.items[q.priority:] {
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
