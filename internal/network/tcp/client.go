package tcp

import (
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/network"
)

// client is the consumer's side of a connection: the input channels of
// this TaskManager that read subpartitions of the peer, each on its own
// logical channel.
type client struct {
	m  *Manager
	c  *conn
	mu struct {
		sync.Mutex
		fetchers map[uint32]*fetcher
		// next is the next channel id; ids are never reused, so a frame
		// for an id below it whose fetcher is gone is a late one.
		next uint32
	}
	// scratch holds the payloads of late frames.
	scratch []byte
}

// fetcher stands in, on the consumer's side, for the remote subpartition
// an input channel reads (a network.Source). It keeps the channel's
// receiving buffers, which are the channel's share of the TaskManager's
// network memory: the producer sends a buffer only against credit, and
// every credit is a buffer the channel has free, so a channel never holds
// more than its credit and a frame beyond it breaks the protocol.
type fetcher struct {
	cl      *client
	channel uint32
	ch      *network.InputChannel
	id      network.PartitionID
	mu      struct {
		sync.Mutex
		free [][]byte
		// outstanding is the credit the producer holds: announced and
		// not yet used by a buffer or a non-priority event.
		outstanding int
		// pending is the credit gathered and not yet announced.
		pending  int
		released bool
	}
}

var _ network.Source = (*fetcher)(nil)

// Consumed implements network.Source: one credit goes back to the
// producer (gathered with others until the writer sends them) and the
// buffer's memory is kept for the next buffer that arrives.
func (f *fetcher) Consumed(buf []byte) {
	f.mu.Lock()
	if f.mu.released {
		f.mu.Unlock()
		return
	}
	if buf != nil {
		f.mu.free = append(f.mu.free, buf[:0])
	}
	f.mu.pending++
	first := f.mu.pending == 1
	f.mu.Unlock()
	if first {
		f.cl.c.enqueue(outbound{typ: FrameCredit, channel: f.channel, credit: f})
	}
}

// takeCredit hands the writer the credit gathered, which the producer
// holds from then on.
func (f *fetcher) takeCredit() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mu.released {
		return 0
	}
	n := f.mu.pending
	f.mu.pending = 0
	f.mu.outstanding += n
	return n
}

// Release implements network.Source: the consumer is gone, and so is the
// channel; the producer releases its subpartition.
func (f *fetcher) Release() {
	if f.release() {
		f.cl.c.enqueue(outbound{typ: FrameRelease, channel: f.channel})
	}
}

// release forgets the fetcher; true the first time.
func (f *fetcher) release() bool {
	f.mu.Lock()
	was := f.mu.released
	f.mu.released = true
	f.mu.free = nil
	f.mu.Unlock()
	f.cl.mu.Lock()
	delete(f.cl.mu.fetchers, f.channel)
	f.cl.mu.Unlock()
	return !was
}

// use takes one credit for an item that arrived, and for a data buffer
// the memory to read it into.
func (f *fetcher) use(data bool) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mu.outstanding == 0 {
		return nil, fmt.Errorf("%w: channel %d (%v) sent an item without credit", ErrCorrupt, f.channel, f.id)
	}
	f.mu.outstanding--
	if !data {
		return nil, nil
	}
	if n := len(f.mu.free); n > 0 {
		b := f.mu.free[n-1]
		f.mu.free = f.mu.free[:n-1]
		return b, nil
	}
	return nil, nil
}

// request asks the peer for subpartition sub of id on a new channel that
// feeds ch.
func (cl *client) request(id network.PartitionID, sub int, ch *network.InputChannel) error {
	f := &fetcher{cl: cl, ch: ch, id: id}
	cl.mu.Lock()
	if cl.mu.fetchers == nil {
		cl.mu.Unlock()
		return fmt.Errorf("tcp: request %v subpartition %d: connection to %s is closed", id, sub, cl.c.peer)
	}
	f.channel = cl.mu.next
	cl.mu.next++
	cl.mu.fetchers[f.channel] = f
	cl.mu.Unlock()
	credit, ok := ch.ConnectSource(f)
	if !ok {
		f.release()
		return nil // the gate is released: nobody waits for the data
	}
	f.mu.Lock()
	f.mu.outstanding = credit
	f.mu.Unlock()
	r := PartitionRequest{Partition: id, Subpartition: sub, Credit: credit}
	if !cl.c.enqueue(outbound{typ: FramePartitionRequest, channel: f.channel, payload: appendRequest(nil, r)}) {
		return fmt.Errorf("tcp: request %v subpartition %d: connection to %s is closed", id, sub, cl.c.peer)
	}
	return nil
}

func (cl *client) fetcher(channel uint32) (f *fetcher, late bool) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	f = cl.mu.fetchers[channel]
	return f, f == nil && channel < cl.mu.next
}

func (cl *client) handle(h Header, fr *frameReader) error {
	switch h.Type {
	case FrameBuffer, FrameEvent, FrameError:
	default:
		return fmt.Errorf("%w: a %s frame cannot go from the producer to the consumer", ErrCorrupt, h.Type)
	}
	f, late := cl.fetcher(h.Channel)
	if f == nil {
		if !late {
			return fmt.Errorf("%w: %s frame on channel %d, which was never requested", ErrCorrupt, h.Type, h.Channel)
		}
		// The channel was released while the frame was on its way.
		var err error
		cl.scratch, err = fr.payload(h, cl.scratch)
		if err == nil {
			_, err = decodeMessage(h.Type, cl.scratch)
		}
		return err
	}
	var it network.Item
	switch h.Type {
	case FrameBuffer:
		buf, err := f.use(true)
		if err != nil {
			return err
		}
		if it.Buf, err = fr.payload(h, buf); err != nil {
			return err
		}
	case FrameEvent:
		p, err := fr.payload(h, cl.scratch)
		cl.scratch = p
		if err != nil {
			return err
		}
		if it.Event, err = decodeEvent(p); err != nil {
			return err
		}
		if !network.IsPriority(it.Event) {
			if _, err := f.use(false); err != nil {
				return err
			}
		}
	case FrameError:
		p, err := fr.payload(h, cl.scratch)
		cl.scratch = p
		if err != nil {
			return err
		}
		msg, err := decodeError(p)
		if err != nil {
			return err
		}
		f.release()
		f.ch.Receive(network.Item{Event: network.ChannelFailed{Err: fmt.Errorf(
			"tcp: TaskManager %s cannot serve %v to this channel: %s", cl.c.peer, f.id, msg)}})
		return nil
	}
	if !f.ch.Receive(it) {
		f.Release()
	}
	return nil
}

func (cl *client) closed(err error) {
	cl.mu.Lock()
	fetchers := cl.mu.fetchers
	cl.mu.fetchers = nil
	cl.mu.Unlock()
	cl.m.forget(cl)
	for _, f := range fetchers {
		f.mu.Lock()
		f.mu.released = true
		f.mu.Unlock()
		f.ch.Receive(network.Item{Event: network.ChannelFailed{Err: fmt.Errorf("tcp: input channel reading %v: %w", f.id, err)}})
	}
}
