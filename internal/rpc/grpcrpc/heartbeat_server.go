package grpcrpc

import (
	"context"
	"errors"

	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ServeHeartbeats answers the heartbeat links of clients (Client.Heartbeat)
// with cfg until the returned stop is called: it watches every client that
// links to it and declares it lost (cfg.OnLost) after cfg.Timeout without
// a heartbeat, or at once when its stream breaks (its process died, its
// connection closed).
func (s *Server) ServeHeartbeats(cfg HeartbeatConfig) (stop func(), err error) {
	e, err := newEdge(cfg, s.log)
	if err != nil {
		return nil, err
	}
	s.hbMu.Lock()
	defer s.hbMu.Unlock()
	if s.hbMu.edge != nil {
		return nil, errors.New("grpcrpc: heartbeats are already served")
	}
	s.hbMu.edge = e
	return func() {
		s.hbMu.Lock()
		if s.hbMu.edge == e {
			s.hbMu.edge = nil
		}
		s.hbMu.Unlock()
		e.close()
	}, nil
}

type heartbeatServer struct {
	rpcpb.UnimplementedHeartbeatServiceServer
	s *Server
}

// Heartbeats serves one client's link: the client's first heartbeat names
// it, this end answers with its own, and the stream lasts until either end
// ends it.
func (x heartbeatServer) Heartbeats(stream rpcpb.HeartbeatService_HeartbeatsServer) error {
	x.s.hbMu.Lock()
	e := x.s.hbMu.edge
	x.s.hbMu.Unlock()
	if e == nil {
		return status.Error(codes.Unavailable, "no heartbeats served here")
	}
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	if first.GetSenderId() == "" {
		return status.Error(codes.InvalidArgument, "the first heartbeat names no sender")
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	l := e.attach(first.GetSenderId(), stream, cancel)
	if l == nil {
		return status.Error(codes.Unavailable, "heartbeats stopped")
	}
	// The stream may not be used once this handler returns.
	defer l.closeSend()
	l.sendHeartbeat()
	e.received(l, first)
	recvDone := make(chan struct{})
	go func() {
		defer close(recvDone)
		l.recvLoop()
	}()
	select {
	case <-ctx.Done():
		// Ended here (timeout, replaced, stopped) or by the client.
	case <-recvDone:
	}
	return nil
}
