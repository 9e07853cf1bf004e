package network

import (
	"context"
	"errors"
	"sync"
)

// ErrReleased is returned to a sender whose receiver is gone (the consuming
// task ended or was cancelled).
var ErrReleased = errors.New("network: channel released")

// Default sizes of the data plane.
const (
	// DefaultBufferSize is the payload size at which a buffer is sent.
	DefaultBufferSize = 32 << 10
	// DefaultCredit is the number of buffers a receiving channel holds.
	DefaultCredit = 2
	// DefaultBacklog is the number of buffers a sender may queue.
	DefaultBacklog = 2
)

// Gate is the input side of a task: every input channel of every input edge.
// Senders (other tasks' goroutines) call Channel.Send; the owning task polls.
// One mutex guards the gate and all its channels.
type Gate struct {
	mu       sync.Mutex
	channels []*Channel
	// ready lists channels with deliverable items, each at most once.
	ready []int
	// avail receives a token when a channel becomes ready.
	avail    chan struct{}
	released bool
	// onBlock, when set (by tests), runs when a sender is about to wait.
	onBlock func()
}

// Channel is one input channel of a gate, fed by one subpartition.
type Channel struct {
	gate    *Gate
	index   int
	credit  Credit
	queue   []Item // delivered, waiting to be polled
	backlog []Item // waiting for credit at the sender
	free    [][]byte
	inReady bool
	blocked bool
	// wake receives a token when a blocked sender may retry.
	wake chan struct{}
}

// NewGate returns a gate with n channels of the given credit and backlog.
func NewGate(n, credit, backlog int) *Gate {
	g := &Gate{avail: make(chan struct{}, 1)}
	for i := 0; i < n; i++ {
		g.channels = append(g.channels, &Channel{
			gate: g, index: i, credit: NewCredit(credit, backlog), wake: make(chan struct{}, 1),
		})
	}
	return g
}

// Channel returns input channel i.
func (g *Gate) Channel(i int) *Channel { return g.channels[i] }

// NumChannels is the number of input channels.
func (g *Gate) NumChannels() int { return len(g.channels) }

// Available returns the channel that receives a token when an item may be
// ready. Poll again after a receive; a token can be stale.
func (g *Gate) Available() <-chan struct{} { return g.avail }

// Poll returns the next item of some ready, unblocked channel. Channels take
// turns. The caller must Recycle data buffers once consumed.
func (g *Gate) Poll() (it Item, channel int, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for len(g.ready) > 0 {
		i := g.ready[0]
		g.ready = g.ready[1:]
		c := g.channels[i]
		c.inReady = false
		if c.blocked || len(c.queue) == 0 {
			continue
		}
		it = c.queue[0]
		c.queue[0] = Item{}
		c.queue = c.queue[1:]
		if len(c.queue) > 0 {
			c.markReadyLocked()
		}
		if it.Event != nil {
			// Events take no credit once consumed: account now.
			c.recycleLocked(nil)
		}
		return it, i, true
	}
	return Item{}, 0, false
}

// Recycle returns a consumed data buffer of channel i: one credit back to its
// sender and the memory for reuse.
func (g *Gate) Recycle(i int, buf []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.channels[i].recycleLocked(buf)
}

// Block stops Poll from returning items of channel i (barrier alignment).
func (g *Gate) Block(i int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.channels[i].blocked = true
}

// Unblock lets channel i deliver again.
func (g *Gate) Unblock(i int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.channels[i]
	c.blocked = false
	if len(c.queue) > 0 {
		c.markReadyLocked()
	}
}

// Release drops everything queued and fails current and future sends with
// ErrReleased. The owning task calls it when it ends.
func (g *Gate) Release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.released = true
	g.ready = nil
	for _, c := range g.channels {
		c.queue, c.backlog, c.free = nil, nil, nil
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

func (c *Channel) markReadyLocked() {
	if c.inReady || c.blocked {
		return
	}
	c.inReady = true
	c.gate.ready = append(c.gate.ready, c.index)
	select {
	case c.gate.avail <- struct{}{}:
	default:
	}
}

func (c *Channel) recycleLocked(buf []byte) {
	if c.gate.released {
		return
	}
	if buf != nil {
		c.free = append(c.free, buf[:0])
	}
	if c.credit.Recycle() {
		c.queue = append(c.queue, c.backlog[0])
		c.backlog[0] = Item{}
		c.backlog = c.backlog[1:]
		c.markReadyLocked()
	}
	// Either a backlog slot or a credit is free now: wake a blocked
	// sender. (Without a backlog, a sender blocks with the backlog empty,
	// so a returned credit must wake it too.)
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Send hands an item to the receiver, queueing it while the receiver has no
// credit and blocking while the backlog is full (back-pressure). It returns
// ctx's error when cancelled and ErrReleased when the receiver is gone.
func (c *Channel) Send(ctx context.Context, it Item) error {
	g := c.gate
	for {
		g.mu.Lock()
		if g.released {
			g.mu.Unlock()
			return ErrReleased
		}
		switch c.credit.Send() {
		case Deliver:
			c.queue = append(c.queue, it)
			c.markReadyLocked()
			g.mu.Unlock()
			return nil
		case Queue:
			c.backlog = append(c.backlog, it)
			g.mu.Unlock()
			return nil
		}
		g.mu.Unlock()
		if g.onBlock != nil {
			g.onBlock()
		}
		select {
		case <-c.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// TakeBuffer returns an empty buffer for the sender, reusing recycled memory
// when there is some.
func (c *Channel) TakeBuffer(size int) []byte {
	g := c.gate
	g.mu.Lock()
	if n := len(c.free); n > 0 {
		b := c.free[n-1]
		c.free = c.free[:n-1]
		g.mu.Unlock()
		return b
	}
	g.mu.Unlock()
	return make([]byte, 0, size)
}
