package grpcrpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/rpc/heartbeat"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// HeartbeatConfig configures one end of heartbeat links: Flink's
// heartbeat.interval and heartbeat.timeout, and what the end does with
// what it hears.
type HeartbeatConfig struct {
	// ID names this end in its heartbeats (a TaskManager's id, the
	// ResourceManager's id).
	ID string
	// Interval is the time between two heartbeats this end sends.
	Interval time.Duration
	// Timeout is how long this end waits for a heartbeat before it
	// declares the peer lost; more than Interval.
	Timeout time.Duration
	// Clock drives the sending and the timeouts; nil is the wall clock.
	Clock clock.Clock
	// Report, if set, is the slot report each outgoing heartbeat carries.
	Report func() *rpcpb.SlotReport
	// OnHeartbeat, if set, is called with every heartbeat received
	// (including the peer's first). It must not block.
	OnHeartbeat func(*rpcpb.Heartbeat)
	// OnLost, if set, is called once for every peer declared lost, by
	// timeout or because its stream broke; not for links this end closed
	// itself. It must not block.
	OnLost func(heartbeat.Loss)
}

func (c HeartbeatConfig) check() error {
	switch {
	case c.ID == "":
		return errors.New("grpcrpc: heartbeat config has no ID")
	case c.Interval <= 0:
		return fmt.Errorf("grpcrpc: heartbeat interval %v is not positive", c.Interval)
	case c.Timeout <= c.Interval:
		return fmt.Errorf("grpcrpc: heartbeat timeout %v is not more than the interval %v", c.Timeout, c.Interval)
	}
	return nil
}

// hbStream is either end of a Heartbeats stream.
type hbStream interface {
	Send(*rpcpb.Heartbeat) error
	Recv() (*rpcpb.Heartbeat, error)
}

// edge is one end's heartbeat links, one per peer, and the monitor that
// decides when a peer is lost.
type edge struct {
	cfg HeartbeatConfig
	clk clock.Clock
	log *slog.Logger
	mu  struct {
		sync.Mutex
		mon      *heartbeat.Monitor
		expiry   clock.Timer
		expiryAt time.Time
		links    map[string]*link
		closed   bool
	}
}

func newEdge(cfg HeartbeatConfig, log *slog.Logger) (*edge, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	mon, err := heartbeat.NewMonitor(cfg.Timeout)
	if err != nil {
		return nil, fmt.Errorf("grpcrpc: %w", err)
	}
	e := &edge{cfg: cfg, clk: cfg.Clock, log: log}
	if e.clk == nil {
		e.clk = clock.Real{}
	}
	e.mu.mon = mon
	e.mu.links = map[string]*link{}
	return e, nil
}

// link is the stream to one peer.
type link struct {
	e      *edge
	peer   string
	stream hbStream
	cancel context.CancelFunc // ends the stream
	lost   chan struct{}      // closed once the peer is declared lost
	loss   heartbeat.Loss     // set before lost is closed

	send struct {
		sync.Mutex
		seq    int64
		closed bool // no Send after this (the stream's handler returned)
	}
	// Guarded by e.mu.
	ticker clock.Timer
	ended  bool
}

// heartbeat is the next heartbeat this end sends on l.
func (l *link) heartbeat() *rpcpb.Heartbeat {
	l.send.seq++
	return l.e.cfg.heartbeat(l.send.seq)
}

// heartbeat is this end's heartbeat number seq.
func (c HeartbeatConfig) heartbeat(seq int64) *rpcpb.Heartbeat {
	hb := &rpcpb.Heartbeat{SenderId: c.ID, Sequence: seq}
	if c.Report != nil {
		hb.SlotReport = c.Report()
	}
	return hb
}

// sendHeartbeat sends the next heartbeat unless the stream is closed for
// sending. An error is left to the receiving side, which sees the broken
// stream too.
func (l *link) sendHeartbeat() {
	l.send.Lock()
	defer l.send.Unlock()
	if l.send.closed {
		return
	}
	if err := l.stream.Send(l.heartbeat()); err != nil {
		l.e.log.Debug("grpcrpc: send heartbeat", "peer", l.peer, "err", err)
	}
}

// closeSend stops every later Send.
func (l *link) closeSend() {
	l.send.Lock()
	defer l.send.Unlock()
	l.send.closed = true
}

// attach starts watching peer on stream: it replaces an older link to the
// same peer (a peer that reconnected), and schedules the first heartbeat
// this end sends after the interval. It returns nil when the edge is
// closed.
func (e *edge) attach(peer string, stream hbStream, cancel context.CancelFunc) *link {
	l := &link{e: e, peer: peer, stream: stream, cancel: cancel, lost: make(chan struct{})}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mu.closed {
		return nil
	}
	if old, ok := e.mu.links[peer]; ok {
		old.end()
	}
	e.mu.links[peer] = l
	e.mu.mon.Add(peer, e.clk.Now())
	e.scheduleTick(l)
	e.scheduleExpiry()
	return l
}

// scheduleTick sends l's next heartbeat after the interval. Called with
// e.mu held.
func (e *edge) scheduleTick(l *link) {
	l.ticker = e.clk.AfterFunc(e.cfg.Interval, func() {
		l.sendHeartbeat()
		e.mu.Lock()
		defer e.mu.Unlock()
		if !l.ended {
			e.scheduleTick(l)
		}
	})
}

// scheduleExpiry sets the timer for the monitor's next deadline, unless
// one at or before it is set. Called with e.mu held.
func (e *edge) scheduleExpiry() {
	next, ok := e.mu.mon.NextDeadline()
	if !ok {
		if e.mu.expiry != nil {
			e.mu.expiry.Stop()
			e.mu.expiry = nil
		}
		return
	}
	if e.mu.expiry != nil && !e.mu.expiryAt.After(next) {
		return
	}
	if e.mu.expiry != nil {
		e.mu.expiry.Stop()
	}
	e.mu.expiryAt = next
	e.mu.expiry = e.clk.AfterFunc(next.Sub(e.clk.Now()), e.expire)
}

// expire declares lost the peers whose timeout passed and ends their
// links.
func (e *edge) expire() {
	e.mu.Lock()
	e.mu.expiry = nil
	if e.mu.closed {
		e.mu.Unlock()
		return
	}
	losses := e.mu.mon.Expire(e.clk.Now())
	for _, loss := range losses {
		e.forget(loss)
	}
	e.scheduleExpiry()
	e.mu.Unlock()
	e.report(losses...)
}

// forget ends the link of a lost peer. Called with e.mu held.
func (e *edge) forget(loss heartbeat.Loss) {
	e.mu.mon.Remove(loss.Target)
	l, ok := e.mu.links[loss.Target]
	if !ok {
		return
	}
	delete(e.mu.links, loss.Target)
	l.loss = loss
	close(l.lost)
	l.end()
}

func (e *edge) report(losses ...heartbeat.Loss) {
	for _, loss := range losses {
		e.log.Warn("grpcrpc: peer lost", "id", e.cfg.ID, "peer", loss.Target, "reason", loss.Reason.String(), "last_seen", loss.LastSeen)
		if e.cfg.OnLost != nil {
			e.cfg.OnLost(loss)
		}
	}
}

// end stops l's heartbeats and its stream. Called with e.mu held.
func (l *link) end() {
	if l.ended {
		return
	}
	l.ended = true
	if l.ticker != nil {
		l.ticker.Stop()
	}
	l.cancel()
}

// received records a heartbeat on l.
func (e *edge) received(l *link, hb *rpcpb.Heartbeat) {
	e.mu.Lock()
	current := e.mu.links[l.peer] == l
	if current {
		e.mu.mon.Heard(l.peer, e.clk.Now())
	}
	e.mu.Unlock()
	if current && e.cfg.OnHeartbeat != nil {
		e.cfg.OnHeartbeat(hb)
	}
}

// broken declares l's peer lost at once because its stream broke, unless
// l was replaced, ended by this end, or its peer already lost.
func (e *edge) broken(l *link, cause error) {
	e.mu.Lock()
	if e.mu.closed || e.mu.links[l.peer] != l || l.ended {
		e.mu.Unlock()
		return
	}
	loss, ok := e.mu.mon.Disconnected(l.peer, e.clk.Now())
	if ok {
		e.forget(loss)
		e.scheduleExpiry()
	}
	e.mu.Unlock()
	if ok {
		e.log.Debug("grpcrpc: heartbeat stream broke", "peer", l.peer, "err", cause)
		e.report(loss)
	}
}

// recvLoop receives heartbeats on l until its stream ends.
func (l *link) recvLoop() {
	for {
		hb, err := l.stream.Recv()
		if err != nil {
			l.e.broken(l, err)
			return
		}
		l.e.received(l, hb)
	}
}

// close ends every link without declaring any peer lost.
func (e *edge) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.mu.closed = true
	if e.mu.expiry != nil {
		e.mu.expiry.Stop()
		e.mu.expiry = nil
	}
	for id, l := range e.mu.links {
		l.end()
		delete(e.mu.links, id)
	}
}
