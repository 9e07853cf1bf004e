package grpcrpc

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// WithTLS makes a Server require TLS with server (mutual TLS when it asks
// for client certificates) and a Client dial with client. A nil config
// leaves that side in plain TCP.
func WithTLS(server, client *tls.Config) Option {
	return func(o *options) { o.serverTLS, o.clientTLS = server, client }
}

// clientCreds are the transport credentials a Client dials with.
func (o options) clientCreds() credentials.TransportCredentials {
	if o.clientTLS == nil {
		return insecure.NewCredentials()
	}
	return credentials.NewTLS(o.clientTLS)
}

// serverCreds are the transport credentials a Server accepts with,
// guarded.
func (o options) serverCreds() credentials.TransportCredentials {
	inner := insecure.NewCredentials()
	if o.serverTLS != nil {
		inner = credentials.NewTLS(o.serverTLS)
	}
	return guard{TransportCredentials: inner, log: o.log}
}

// guard wraps a server's transport credentials so that a connection that
// fails the TLS handshake, or whose first bytes are not HTTP/2's client
// preface (a port scanner, a client of another protocol, garbage), is
// closed with a log line that names the peer, before gRPC's transport
// sees it; gRPC itself would close it silently.
type guard struct {
	credentials.TransportCredentials
	log *slog.Logger
}

// ServerHandshake implements credentials.TransportCredentials. gRPC calls
// it on a connection's own goroutine, with the connection's deadline set.
func (g guard) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := g.TransportCredentials.ServerHandshake(raw)
	if err != nil {
		g.log.Warn("grpcrpc: closed a connection: TLS handshake failed", "remote", raw.RemoteAddr().String(), "err", err)
		return nil, nil, err
	}
	preface := make([]byte, len(clientPreface))
	if _, err := io.ReadFull(conn, preface); err != nil {
		if err != io.EOF {
			g.log.Warn("grpcrpc: closed a connection: no HTTP/2 preface", "remote", raw.RemoteAddr().String(), "err", err)
		}
		conn.Close()
		return nil, nil, fmt.Errorf("grpcrpc: reading the HTTP/2 preface: %w", err)
	}
	if !bytes.Equal(preface, []byte(clientPreface)) {
		g.log.Warn("grpcrpc: closed a connection that does not speak gRPC", "remote", raw.RemoteAddr().String(), "first_bytes", fmt.Sprintf("%q", preface))
		conn.Close()
		return nil, nil, fmt.Errorf("grpcrpc: bad HTTP/2 preface %q", preface)
	}
	return &replayConn{Conn: conn, head: preface}, info, nil
}

// ClientHandshake implements credentials.TransportCredentials.
func (g guard) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return g.TransportCredentials.ClientHandshake(ctx, authority, raw)
}

// Clone implements credentials.TransportCredentials.
func (g guard) Clone() credentials.TransportCredentials {
	return guard{TransportCredentials: g.TransportCredentials.Clone(), log: g.log}
}

// clientPreface opens every HTTP/2 connection (RFC 9113, 3.4).
const clientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// replayConn reads head before the rest of Conn.
type replayConn struct {
	net.Conn
	head []byte
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.head) > 0 {
		n := copy(p, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}
