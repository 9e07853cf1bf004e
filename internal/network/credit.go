package network

// Decision is what a sender must do with a buffer.
type Decision int

const (
	// Deliver: hand the buffer to the receiver now (one credit used).
	Deliver Decision = iota
	// Queue: keep it in the sender's backlog until credit arrives.
	Queue
	// Block: the backlog is full; the sender must wait.
	Block
)

// Credit is the pure flow-control accounting of one channel.
//
// Invariants: Credit()+InFlight() == capacity; Backlog() <= maxBacklog; a
// non-empty backlog implies no unused credit (a buffer never waits while
// credit is available).
type Credit struct {
	capacity, maxBacklog int
	credit, inFlight     int
	backlog              int
}

// NewCredit returns the accounting of a channel whose receiver has capacity
// buffers and whose sender may queue maxBacklog more.
func NewCredit(capacity, maxBacklog int) Credit {
	return Credit{capacity: capacity, maxBacklog: maxBacklog, credit: capacity}
}

// Send decides what happens to a new buffer and accounts for it, except
// for Block, which changes nothing.
func (c *Credit) Send() Decision {
	switch {
	case c.credit > 0:
		c.credit--
		c.inFlight++
		return Deliver
	case c.backlog < c.maxBacklog:
		c.backlog++
		return Queue
	default:
		return Block
	}
}

// Recycle accounts for a buffer the receiver has consumed. It reports
// whether the oldest backlog buffer must now be delivered with the returned
// credit.
func (c *Credit) Recycle() (deliverBacklog bool) {
	c.inFlight--
	if c.backlog > 0 {
		c.backlog--
		c.inFlight++
		return true
	}
	c.credit++
	return false
}

// Credit is the unused credit the sender holds.
func (c *Credit) Credit() int { return c.credit }

// InFlight is the number of buffers at the receiver not yet recycled.
func (c *Credit) InFlight() int { return c.inFlight }

// Backlog is the number of buffers waiting at the sender.
func (c *Credit) Backlog() int { return c.backlog }
