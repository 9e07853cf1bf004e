package tcp

import (
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/network"
)

// server is the producer's side of a connection: it serves the
// subpartitions the consumer's TaskManager requests, each on its channel.
type server struct {
	m  *Manager
	c  *conn
	mu struct {
		sync.Mutex
		senders map[uint32]*sender
	}
}

// sender stands in, on the producer's side, for a consumer's input channel
// (a network.Receiver): what the subpartition hands it, against the
// credit the consumer announced, goes into the connection's queue.
type sender struct {
	c       *conn
	channel uint32
	credit  int
	max     int
	mu      struct {
		sync.Mutex
		sub      *network.Subpartition
		released bool
	}
}

var _ network.Receiver = (*sender)(nil)

// Connect implements network.Receiver.
func (s *sender) Connect(sub *network.Subpartition) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.released || s.c.isClosed() {
		return 0, false
	}
	s.mu.sub = sub
	return s.credit, true
}

// Receive implements network.Receiver; it runs under the subpartition's
// lock and only queues.
func (s *sender) Receive(it network.Item) bool {
	if it.Event == nil {
		if len(it.Buf) > s.max {
			s.c.enqueue(outbound{typ: FrameError, channel: s.channel, payload: fmt.Appendf(nil,
				"a buffer of %d bytes exceeds the data plane's maximum frame payload of %d bytes", len(it.Buf), s.max)})
			return false
		}
		return s.c.enqueue(outbound{typ: FrameBuffer, channel: s.channel, payload: it.Buf, reuse: s})
	}
	p, err := appendEvent(nil, it.Event)
	if err != nil {
		s.c.enqueue(outbound{typ: FrameError, channel: s.channel, payload: []byte(err.Error())})
		return false
	}
	return s.c.enqueue(outbound{typ: FrameEvent, channel: s.channel, payload: p})
}

func (s *sender) subpartition() *network.Subpartition {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.sub
}

// reuse gives a written data buffer back to the subpartition.
func (s *sender) reuse(buf []byte) {
	if sub := s.subpartition(); sub != nil {
		sub.Reuse(buf)
	}
}

// release releases the subpartition, or makes a later Connect refuse.
func (s *sender) release() {
	s.mu.Lock()
	s.mu.released = true
	sub := s.mu.sub
	s.mu.Unlock()
	if sub != nil {
		sub.Release()
	}
}

func (sv *server) handle(h Header, fr *frameReader) error {
	p, err := fr.payload(h, nil)
	if err != nil {
		return err
	}
	m, err := decodeMessage(h.Type, p)
	if err != nil {
		return err
	}
	switch h.Type {
	case FramePartitionRequest:
		return sv.request(h.Channel, m.(*PartitionRequest))
	case FrameCredit:
		s := sv.sender(h.Channel)
		if s == nil {
			return nil // released before the credit arrived
		}
		sub := s.subpartition()
		if sub == nil {
			return fmt.Errorf("%w: credit on channel %d before any item was sent", ErrCorrupt, h.Channel)
		}
		sub.Grant(int(m.(Credit)))
		return nil
	case FrameRelease:
		sv.mu.Lock()
		s := sv.mu.senders[h.Channel]
		delete(sv.mu.senders, h.Channel)
		sv.mu.Unlock()
		if s != nil {
			s.release()
		}
		return nil
	}
	return fmt.Errorf("%w: a %s frame cannot go from the consumer to the producer", ErrCorrupt, h.Type)
}

func (sv *server) sender(channel uint32) *sender {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.mu.senders[channel]
}

func (sv *server) request(channel uint32, r *PartitionRequest) error {
	s := &sender{c: sv.c, channel: channel, credit: r.Credit, max: sv.m.opts.MaxPayload}
	sv.mu.Lock()
	if sv.mu.senders == nil {
		sv.mu.Unlock()
		s.release()
		return nil // closed meanwhile
	}
	if _, dup := sv.mu.senders[channel]; dup {
		sv.mu.Unlock()
		return fmt.Errorf("%w: channel %d requested twice", ErrCorrupt, channel)
	}
	sv.mu.senders[channel] = s
	sv.mu.Unlock()
	if err := sv.m.local.Connect(r.Partition, r.Subpartition, s); err != nil {
		sv.mu.Lock()
		delete(sv.mu.senders, channel)
		sv.mu.Unlock()
		sv.c.enqueue(outbound{typ: FrameError, channel: channel, payload: []byte(err.Error())})
	}
	return nil
}

func (sv *server) closed(error) {
	sv.mu.Lock()
	senders := sv.mu.senders
	sv.mu.senders = nil
	sv.mu.Unlock()
	for _, s := range senders {
		s.release()
	}
}
