package grpcrpc

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// ErrClosed is the error of a call through a closed Client.
var ErrClosed = errors.New("grpcrpc: client closed")

// Client reaches gateways served by Servers, by address, over one
// connection per server that it dials on first use, with one call stream
// per gateway kind and server (see session). It is safe for concurrent
// use.
type Client struct {
	log   *slog.Logger
	creds credentials.TransportCredentials
	mu    struct {
		sync.Mutex
		conns    map[string]*grpc.ClientConn
		sessions map[string]*session
		closed   bool
	}
}

// NewClient returns a client with no connection yet.
func NewClient(opts ...Option) *Client {
	o := buildOptions(opts)
	c := &Client{log: o.log, creds: o.clientCreds()}
	c.mu.conns = map[string]*grpc.ClientConn{}
	c.mu.sessions = map[string]*session{}
	return c
}

// conn returns the connection to the server at hostport.
func (c *Client) conn(hostport string) (*grpc.ClientConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.closed {
		return nil, ErrClosed
	}
	return c.connLocked(hostport)
}

// connLocked is conn with c.mu held.
func (c *Client) connLocked(hostport string) (*grpc.ClientConn, error) {
	if cc, ok := c.mu.conns[hostport]; ok {
		return cc, nil
	}
	// passthrough: the address is dialled as it is, with no resolver of
	// its own in between.
	cc, err := grpc.NewClient("passthrough:///"+hostport, grpc.WithTransportCredentials(c.creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageSize)))
	if err != nil {
		return nil, fmt.Errorf("grpcrpc: connect to %s: %w", hostport, err)
	}
	c.mu.conns[hostport] = cc
	return cc, nil
}

// drop forgets a broken session, so that the next call opens a new one.
func (c *Client) drop(s *session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := sessionKey(s.kind, s.hostport)
	if c.mu.sessions[key] == s {
		delete(c.mu.sessions, key)
	}
}

// Close fails the calls in flight with ErrClosed, closes every
// connection, and waits for the client's goroutines.
func (c *Client) Close() error {
	c.mu.Lock()
	conns, sessions := c.mu.conns, c.mu.sessions
	c.mu.conns, c.mu.sessions = nil, nil
	c.mu.closed = true
	c.mu.Unlock()
	for _, s := range sessions {
		s.close()
	}
	var errs []error
	for _, cc := range conns {
		errs = append(errs, cc.Close())
	}
	return errors.Join(errs...)
}
