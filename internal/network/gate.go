package network

import (
	"errors"
	"sync"
	"sync/atomic"
)

// ErrReleased is returned to a producer whose consumer is gone (the
// consuming task ended or was cancelled, or the job's partitions were
// released).
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

// Gate is the input side of a task (Flink's InputGate): every input
// channel of every input edge. A ConnectionManager connects each channel
// to the subpartition it reads; the producers' subpartitions hand items in
// (InputChannel.receive), the owning task polls. One mutex guards the gate
// and its channels; it is never held while calling into a subpartition
// (see Subpartition for the lock order).
type Gate struct {
	mu       sync.Mutex
	channels []*InputChannel
	// ready lists channels with deliverable non-priority items, each at
	// most once.
	ready []int
	// avail receives a token when a channel becomes ready or a priority
	// event arrives.
	avail    chan struct{}
	released bool
	// priority counts the priority events queued; read without the lock
	// by the task between records.
	priority atomic.Int32
}

// InputChannel is one input channel of a gate, fed by one subpartition.
type InputChannel struct {
	gate   *Gate
	index  int
	credit int
	queue  itemQueue
	// overtook holds, for each priority event queued, how many data
	// buffers it overtook in this channel.
	overtook []int
	// source is the subpartition the channel reads, or a connection
	// manager's stand-in for a remote one, once connected.
	source  Source
	inReady bool
	blocked bool
}

// NewGate returns a gate of n channels, each holding credit buffers.
func NewGate(n, credit int) *Gate {
	g := &Gate{avail: make(chan struct{}, 1)}
	for i := 0; i < n; i++ {
		g.channels = append(g.channels, &InputChannel{gate: g, index: i, credit: credit})
	}
	return g
}

// Channel returns input channel i.
func (g *Gate) Channel(i int) *InputChannel { return g.channels[i] }

// NumChannels is the number of input channels.
func (g *Gate) NumChannels() int { return len(g.channels) }

// Available returns the channel that receives a token when an item may be
// ready. Poll again after a receive; a token can be stale.
func (g *Gate) Available() <-chan struct{} { return g.avail }

// HasPriority reports, without locking, whether a priority event waits.
func (g *Gate) HasPriority() bool { return g.priority.Load() > 0 }

// Poll returns the next item: a priority event of any channel (blocked or
// not) first, with Overtaken set to copies of the data buffers it overtook
// in its channel; otherwise the next item of some ready, unblocked channel,
// channels taking turns. The caller must Recycle data buffers once
// consumed.
func (g *Gate) Poll() (it Item, channel int, ok bool) {
	g.mu.Lock()
	if it, ch, ok := g.pollPriorityLocked(); ok {
		g.mu.Unlock()
		return it, ch, true
	}
	var src Source
	for len(g.ready) > 0 && !ok {
		i := g.ready[0]
		// Shifting keeps the array: a channel that becomes ready again
		// after every poll appends without allocating.
		g.ready = g.ready[:copy(g.ready, g.ready[1:])]
		c := g.channels[i]
		c.inReady = false
		if c.blocked || c.queue.len() == 0 {
			continue
		}
		it, _ = c.queue.pop()
		channel, ok = i, true
		if c.queue.len() > 0 {
			c.markReadyLocked()
		}
		if it.Event != nil {
			// A non-priority event took a credit: it is consumed now.
			src = c.source
		}
	}
	g.mu.Unlock()
	if src != nil {
		src.Consumed(nil)
	}
	return it, channel, ok
}

// PollPriority returns the oldest priority event of any channel, if there
// is one, with Overtaken set (see Poll).
func (g *Gate) PollPriority() (it Item, channel int, ok bool) {
	if !g.HasPriority() {
		return Item{}, 0, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pollPriorityLocked()
}

func (g *Gate) pollPriorityLocked() (it Item, channel int, ok bool) {
	if g.priority.Load() == 0 {
		return Item{}, 0, false
	}
	for i, c := range g.channels {
		if !c.queue.headIsPriority() {
			continue
		}
		n := c.overtook[0]
		c.overtook = c.overtook[1:]
		it, _ = c.queue.pop()
		g.priority.Add(-1)
		for _, b := range c.queue.dataAfterPriority(n) {
			it.Overtaken = append(it.Overtaken, append([]byte(nil), b...))
		}
		return it, i, true
	}
	return Item{}, 0, false
}

// Recycle returns a consumed data buffer of channel i: one credit back to its
// sender and the memory for reuse.
func (g *Gate) Recycle(i int, buf []byte) {
	g.mu.Lock()
	src := g.channels[i].source
	released := g.released
	g.mu.Unlock()
	if src != nil && !released {
		src.Consumed(buf)
	}
}

// Block stops Poll from returning non-priority items of channel i
// (barrier alignment).
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
	if c.queue.len() > 0 {
		c.markReadyLocked()
	}
}

// Release drops everything queued and releases the subpartitions the gate
// reads, whose later adds fail with ErrReleased. The owning task calls it
// when it ends.
func (g *Gate) Release() {
	g.mu.Lock()
	g.released = true
	g.ready = nil
	g.priority.Store(0)
	var sources []Source
	for _, c := range g.channels {
		c.queue.clear()
		c.overtook = nil
		if c.source != nil {
			sources = append(sources, c.source)
			c.source = nil
		}
	}
	g.mu.Unlock()
	for _, s := range sources {
		s.Release()
	}
}

// Connect implements Receiver: the subpartition s of this process becomes
// the channel's source.
func (c *InputChannel) Connect(s *Subpartition) (credit int, ok bool) { return c.ConnectSource(s) }

// ConnectSource records src as the channel's source, which the gate tells
// of consumed items and of its release, and returns the credit the
// channel announces to it; ok is false when the gate is released. A
// connection manager calls it with its stand-in for a subpartition of
// another process, and then hands the items that arrive to Receive.
func (c *InputChannel) ConnectSource(src Source) (credit int, ok bool) {
	g := c.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.released {
		return 0, false
	}
	c.source = src
	return c.credit, true
}

// Receive implements Receiver: it takes the next item of the channel's
// source, in order. It returns false when the gate is released. A
// ChannelFailed event is a priority event: it reaches the task even when
// the channel is blocked for alignment.
func (c *InputChannel) Receive(it Item) bool {
	g := c.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.released {
		return false
	}
	n := c.queue.push(it)
	if it.Event != nil && IsPriority(it.Event) {
		c.overtook = append(c.overtook, n)
		g.priority.Add(1)
		g.signalLocked()
		return true
	}
	c.markReadyLocked()
	return true
}

func (c *InputChannel) markReadyLocked() {
	if c.inReady || c.blocked {
		return
	}
	c.inReady = true
	c.gate.ready = append(c.gate.ready, c.index)
	c.gate.signalLocked()
}

func (g *Gate) signalLocked() {
	select {
	case g.avail <- struct{}{}:
	default:
	}
}
