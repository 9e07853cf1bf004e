package grpcrpc

import (
	"context"
	"fmt"

	"github.com/weir-engine/weir/internal/rpc/heartbeat"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// Link is a client's heartbeat link to one server.
type Link struct {
	e        *edge
	l        *link
	recvDone chan struct{}
}

// Heartbeat links this process to the server at addr: it sends its first
// heartbeat, waits (within ctx) for the server's, and from then on sends
// one every cfg.Interval and declares the server lost (Lost, cfg.OnLost)
// after cfg.Timeout without one, or at once when the stream breaks. A
// server that is not there fails it with an error that matches
// rpc.ErrUnreachable.
func (c *Client) Heartbeat(ctx context.Context, addr string, cfg HeartbeatConfig) (*Link, error) {
	e, err := newEdge(cfg, c.log)
	if err != nil {
		return nil, err
	}
	hostport, _, err := splitAddress(addr)
	if err != nil {
		return nil, err
	}
	cc, err := c.conn(hostport)
	if err != nil {
		return nil, fmt.Errorf("grpcrpc: heartbeat to %s: %w", addr, err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	stream, err := rpcpb.NewHeartbeatServiceClient(cc).Heartbeats(sctx)
	if err != nil {
		cancel()
		return nil, callError(ctx, addr, "Heartbeats", err)
	}
	first, err := handshake(ctx, stream, cfg.heartbeat(0))
	if err != nil {
		cancel()
		return nil, callError(ctx, addr, "Heartbeats", err)
	}
	if first.GetSenderId() == "" {
		cancel()
		return nil, fmt.Errorf("grpcrpc: heartbeat to %s: the server's first heartbeat names no sender", addr)
	}
	l := e.attach(first.GetSenderId(), stream, cancel)
	k := &Link{e: e, l: l, recvDone: make(chan struct{})}
	e.received(l, first)
	go func() {
		defer close(k.recvDone)
		l.recvLoop()
	}()
	return k, nil
}

// handshake sends hello and returns the peer's first heartbeat, or ctx's
// error (the stream is then left for its caller to cancel).
func handshake(ctx context.Context, stream rpcpb.HeartbeatService_HeartbeatsClient, hello *rpcpb.Heartbeat) (*rpcpb.Heartbeat, error) {
	type result struct {
		hb  *rpcpb.Heartbeat
		err error
	}
	ch := make(chan result, 1)
	go func() {
		if err := stream.Send(hello); err != nil {
			// The cause is on the receiving side.
			_, err = stream.Recv()
			ch <- result{nil, err}
			return
		}
		hb, err := stream.Recv()
		ch <- result{hb, err}
	}()
	select {
	case r := <-ch:
		return r.hb, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Peer is the server's heartbeat ID.
func (k *Link) Peer() string { return k.l.peer }

// Lost is closed once the server is declared lost.
func (k *Link) Lost() <-chan struct{} { return k.l.lost }

// Loss is why the server was declared lost; false while it is not.
func (k *Link) Loss() (heartbeat.Loss, bool) {
	select {
	case <-k.l.lost:
		return k.l.loss, true
	default:
		return heartbeat.Loss{}, false
	}
}

// Close ends the link (the server sees its stream end) and waits for its
// goroutines.
func (k *Link) Close() {
	k.e.close()
	<-k.recvDone
	k.l.closeSend()
}
