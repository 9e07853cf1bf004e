package network

// Outbox is the pure state of one subpartition on the producer's side:
// the items waiting to go to the consumer's input channel, and the credit
// the consumer announced. It is Flink's credit-based flow control seen
// from the sender, with priority events and without blocking:
//
//   - A non-priority item (data buffer or event) goes out only with a
//     credit, one credit each; the consumer returns the credit when it has
//     consumed the item (a data buffer once recycled, an event once
//     polled). The consumer announces its credit when it connects, so a
//     subpartition whose consumer is not connected yet holds its items.
//   - A priority event goes out at once, without credit, ahead of the
//     queued items (see IsPriority); Add returns the data buffers it
//     overtook.
//   - Add never refuses: the writer asks Writable before it produces more,
//     and a producer that is not writable stops processing input (Flink's
//     availability). One input record that produces several buffers can
//     overdraw the backlog by those buffers, never by more.
//
// Writable holds while the items waiting are fewer than the credit plus
// the backlog, so a channel holds at most credit (at the consumer) plus
// backlog (here) plus the one buffer the writer fills, plus any overdraft.
type Outbox struct {
	queue      itemQueue
	credit     int
	maxBacklog int
}

// NewOutbox returns the outbox of a subpartition that may queue maxBacklog
// buffers beyond the consumer's credit. It has no credit until Grant.
func NewOutbox(maxBacklog int) *Outbox { return &Outbox{maxBacklog: maxBacklog} }

// Add queues it. For a priority event it returns the data buffers it
// overtook, in order; they stay queued behind it.
func (o *Outbox) Add(it Item) (overtaken [][]byte) {
	if n := o.queue.push(it); n > 0 {
		return o.queue.dataAfterPriority(n)
	}
	return nil
}

// Next removes and returns the item that may go to the consumer now, if
// any: a priority event always, any other item while there is credit (it
// takes one).
func (o *Outbox) Next() (Item, bool) {
	if o.queue.headIsPriority() {
		return o.queue.pop()
	}
	if o.credit == 0 || o.queue.len() == 0 {
		return Item{}, false
	}
	o.credit--
	return o.queue.pop()
}

// Grant adds n credits announced by the consumer.
func (o *Outbox) Grant(n int) { o.credit += n }

// Writable reports whether the producer may write another buffer without
// going beyond its backlog.
func (o *Outbox) Writable() bool {
	return o.Backlog() < o.credit+o.maxBacklog
}

// Credit is the unused credit of the consumer.
func (o *Outbox) Credit() int { return o.credit }

// Backlog is the number of non-priority items waiting.
func (o *Outbox) Backlog() int { return o.queue.len() - o.queue.priority }

// Len is the number of items waiting, priority events included.
func (o *Outbox) Len() int { return o.queue.len() }

// Clear drops every waiting item.
func (o *Outbox) Clear() { o.queue.clear() }
