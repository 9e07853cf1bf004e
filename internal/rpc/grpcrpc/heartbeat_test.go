package grpcrpc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/grpcrpc"
	"github.com/weir-engine/weir/internal/rpc/heartbeat"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

const (
	interval = time.Second
	timeout  = 3 * time.Second
)

var start = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// end is one end of a heartbeat link in a test: its config on a fake
// clock, and what it heard and lost.
type end struct {
	clock *clock.Fake
	cfg   grpcrpc.HeartbeatConfig
	heard chan *rpcpb.Heartbeat
	lost  chan heartbeat.Loss
}

func newEnd(id string) *end {
	e := &end{clock: clock.NewFake(start), heard: make(chan *rpcpb.Heartbeat, 64), lost: make(chan heartbeat.Loss, 4)}
	e.cfg = grpcrpc.HeartbeatConfig{
		ID: id, Interval: interval, Timeout: timeout, Clock: e.clock,
		Report:      func() *rpcpb.SlotReport { return &rpcpb.SlotReport{Slots: []*rpcpb.SlotStatus{{JobId: id}}} },
		OnHeartbeat: func(hb *rpcpb.Heartbeat) { e.heard <- hb },
		OnLost:      func(l heartbeat.Loss) { e.lost <- l },
	}
	return e
}

// serveHeartbeats starts a server that answers heartbeats as rm.
func serveHeartbeats(t *testing.T, rm *end) *grpcrpc.Server {
	t.Helper()
	srv, err := grpcrpc.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	stop, err := srv.ServeHeartbeats(rm.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return srv
}

// link links tm to srv.
func link(t *testing.T, srv *grpcrpc.Server, tm *end) *grpcrpc.Link {
	t.Helper()
	client := grpcrpc.NewClient()
	t.Cleanup(func() { _ = client.Close() })
	l, err := client.Heartbeat(context.Background(), srv.Addr(), tm.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

func expectHeartbeat(t *testing.T, e *end, from string, seq int64) {
	t.Helper()
	hb := <-e.heard
	if hb.GetSenderId() != from || hb.GetSequence() != seq || hb.GetSlotReport().GetSlots()[0].GetJobId() != from {
		t.Fatalf("heard %v, want heartbeat %d from %s with its slot report", hb, seq, from)
	}
}

func expectLoss(t *testing.T, e *end, target string, reason heartbeat.Reason) heartbeat.Loss {
	t.Helper()
	l := <-e.lost
	if l.Target != target || l.Reason != reason {
		t.Fatalf("lost %v, want %s lost by %s", l, target, reason)
	}
	return l
}

// TestHeartbeatsFlowBothWays: each end sends a heartbeat every interval;
// as long as they arrive, neither end declares the other lost, over more
// than the timeout.
func TestHeartbeatsFlowBothWays(t *testing.T) {
	rm, tm := newEnd("rm"), newEnd("tm-1")
	srv := serveHeartbeats(t, rm)
	l := link(t, srv, tm)
	if l.Peer() != "rm" {
		t.Fatalf("linked to %q, want rm", l.Peer())
	}
	// The handshake: the client's first heartbeat, then the server's.
	expectHeartbeat(t, rm, "tm-1", 0)
	expectHeartbeat(t, tm, "rm", 1)
	for i := int64(1); i <= int64(2*timeout/interval); i++ {
		tm.clock.Advance(interval)
		expectHeartbeat(t, rm, "tm-1", i)
		rm.clock.Advance(interval)
		expectHeartbeat(t, tm, "rm", i+1)
	}
	if loss, lost := l.Loss(); lost {
		t.Fatalf("client lost the server: %v", loss)
	}
	select {
	case loss := <-rm.lost:
		t.Fatalf("server lost the client: %v", loss)
	case loss := <-tm.lost:
		t.Fatalf("client lost the server: %v", loss)
	default:
	}
}

// TestSilentPeerIsLostByTimeout: a server that sends no heartbeat (its
// clock stands still) is lost to the client once the timeout passes; the
// client then ends the stream, which the server sees at once.
func TestSilentPeerIsLostByTimeout(t *testing.T) {
	rm, tm := newEnd("rm"), newEnd("tm-1")
	srv := serveHeartbeats(t, rm)
	l := link(t, srv, tm)
	tm.clock.Advance(timeout - time.Nanosecond)
	if loss, lost := l.Loss(); lost {
		t.Fatalf("lost before the timeout: %v", loss)
	}
	tm.clock.Advance(time.Nanosecond)
	loss := expectLoss(t, tm, "rm", heartbeat.Timeout)
	if !loss.LastSeen.Equal(start) || !loss.At.Equal(start.Add(timeout)) {
		t.Errorf("loss %v: want last seen at the start, lost at start+timeout", loss)
	}
	<-l.Lost()
	if got, _ := l.Loss(); got != loss {
		t.Errorf("Link.Loss = %v, OnLost got %v", got, loss)
	}
	expectLoss(t, rm, "tm-1", heartbeat.Disconnected)
}

// TestClosedServerIsLostAtOnce: a server that closes is lost to its
// clients at once, with no clock moving.
func TestClosedServerIsLostAtOnce(t *testing.T) {
	rm, tm := newEnd("rm"), newEnd("tm-1")
	srv := serveHeartbeats(t, rm)
	l := link(t, srv, tm)
	srv.Close()
	expectLoss(t, tm, "rm", heartbeat.Disconnected)
	<-l.Lost()
	select {
	case loss := <-rm.lost:
		t.Fatalf("the server that closed reported %v", loss)
	default:
	}
}

// TestKilledProcessIsLostAtOnce: a peer process killed with SIGKILL is
// lost at once, on either side of the link; the helpers' and the test's
// timeouts are hours away (the test's clocks stand still).
func TestKilledProcessIsLostAtOnce(t *testing.T) {
	t.Run("client process", func(t *testing.T) {
		rm := newEnd("rm")
		srv := serveHeartbeats(t, rm)
		cmd, line := startHelper(t, "client "+srv.Addr())
		if line != "linked" {
			t.Fatalf("helper printed %q, want linked", line)
		}
		if hb := <-rm.heard; hb.GetSenderId() != "helper-client" {
			t.Fatalf("heard %v, want helper-client's first heartbeat", hb)
		}
		kill(t, cmd)
		expectLoss(t, rm, "helper-client", heartbeat.Disconnected)
	})
	t.Run("server process", func(t *testing.T) {
		tm := newEnd("tm-1")
		cmd, addr := startHelper(t, "server")
		client := grpcrpc.NewClient()
		defer func() { _ = client.Close() }()
		l, err := client.Heartbeat(context.Background(), addr, tm.cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		kill(t, cmd)
		expectLoss(t, tm, "helper-server", heartbeat.Disconnected)
		// And a call to it now fails as unreachable.
		_, err = wait(client.ResourceManager(addr).Heartbeat(context.Background(), &rpcpb.Heartbeat{SenderId: "tm-1"}))
		if !errors.Is(err, rpc.ErrUnreachable) {
			t.Fatalf("call to the killed server: %v, want rpc.ErrUnreachable", err)
		}
	})
}

// TestClientCloseIsLostAtOnceOnServer: a client that closes its link is
// lost to the server at once.
func TestClientCloseIsLostAtOnceOnServer(t *testing.T) {
	rm, tm := newEnd("rm"), newEnd("tm-1")
	srv := serveHeartbeats(t, rm)
	l := link(t, srv, tm)
	l.Close()
	expectLoss(t, rm, "tm-1", heartbeat.Disconnected)
	if loss, lost := l.Loss(); lost {
		t.Fatalf("the client that closed its link lost the server: %v", loss)
	}
}

// TestHeartbeatToNoServerIsUnreachable: linking to an address no server
// listens on, or to a server that serves no heartbeats, fails at once.
func TestHeartbeatToNoServerIsUnreachable(t *testing.T) {
	srv, err := grpcrpc.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.Addr()
	client := grpcrpc.NewClient()
	defer func() { _ = client.Close() }()
	if _, err := client.Heartbeat(context.Background(), addr, newEnd("tm-1").cfg); !errors.Is(err, rpc.ErrUnreachable) {
		t.Errorf("server without heartbeats: %v, want rpc.ErrUnreachable", err)
	}
	srv.Close()
	if _, err := client.Heartbeat(context.Background(), addr, newEnd("tm-1").cfg); !errors.Is(err, rpc.ErrUnreachable) {
		t.Errorf("closed server: %v, want rpc.ErrUnreachable", err)
	}
}

func TestHeartbeatConfigIsChecked(t *testing.T) {
	srv, err := grpcrpc.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, cfg := range []grpcrpc.HeartbeatConfig{
		{Interval: time.Second, Timeout: 2 * time.Second},
		{ID: "x", Interval: 0, Timeout: time.Second},
		{ID: "x", Interval: time.Second, Timeout: time.Second},
	} {
		if _, err := srv.ServeHeartbeats(cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
}

// TestReconnectedPeerReplacesItsOldLink: a client that links again under
// the same ID (a TaskManager that re-registers) replaces its old link: the
// server ends the old stream without declaring the peer lost, and watches
// the new one.
func TestReconnectedPeerReplacesItsOldLink(t *testing.T) {
	rm, old, renewed := newEnd("rm"), newEnd("tm-1"), newEnd("tm-1")
	srv := serveHeartbeats(t, rm)
	first := link(t, srv, old)
	expectHeartbeat(t, rm, "tm-1", 0)
	second := link(t, srv, renewed)
	expectHeartbeat(t, rm, "tm-1", 0)
	expectLoss(t, old, "rm", heartbeat.Disconnected)
	<-first.Lost()
	renewed.clock.Advance(interval)
	expectHeartbeat(t, rm, "tm-1", 1)
	select {
	case loss := <-rm.lost:
		t.Fatalf("server reported %v for a replaced link", loss)
	default:
	}
	if loss, lost := second.Loss(); lost {
		t.Fatalf("the new link is lost: %v", loss)
	}
	// The server's timeout now runs from the new link's heartbeat.
	rm.clock.Advance(timeout)
	expectLoss(t, rm, "tm-1", heartbeat.Timeout)
	expectLoss(t, renewed, "rm", heartbeat.Disconnected)
}
