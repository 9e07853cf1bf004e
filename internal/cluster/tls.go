package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/weir-engine/weir/internal/network/tcp"
	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rpc/grpcrpc"
	"github.com/weir-engine/weir/internal/security"
)

// Security is the TLS and authentication of a cluster process. Its zero
// value is plain TCP everywhere and an open REST API, bound to loopback
// by default.
type Security struct {
	// Internal are the PEM files of the cluster's mutual TLS, for the
	// gRPC control plane and the TCP data plane
	// (security.ssl.internal.cert, .key, .ca): every process holds a
	// certificate signed by the cluster's CA and accepts only peers that
	// do. None set: no TLS.
	Internal security.Files
	// REST are the PEM certificate and key of the JobManager's HTTPS
	// (security.ssl.rest.cert, .key); none set: plain HTTP.
	REST security.Files
	// RESTTokenFile holds the bearer token the REST API requires
	// (security.rest.token-file); "": none.
	RESTTokenFile string
}

// internalTLS is the mutual TLS of the cluster's connections, nil and nil
// without it.
func (s Security) internalTLS() (server, client *tls.Config, err error) {
	if !s.Internal.Enabled() {
		return nil, nil, nil
	}
	if server, client, err = s.Internal.Mutual(); err != nil {
		return nil, nil, fmt.Errorf("internal TLS: %w", err)
	}
	return server, client, nil
}

// rpcOptions are the gRPC options of the process's server and client.
func (s Security) rpcOptions() ([]grpcrpc.Option, error) {
	server, client, err := s.internalTLS()
	if err != nil || server == nil {
		return nil, err
	}
	return []grpcrpc.Option{grpcrpc.WithTLS(server, client)}, nil
}

// dataPlane makes o's data plane speak the cluster's mutual TLS: it
// listens on o.ListenAddr and dials with TLS.
func (s Security) dataPlane(o *tcp.Options) error {
	server, client, err := s.internalTLS()
	if err != nil || server == nil {
		return err
	}
	ln, err := net.Listen("tcp", orLoopback(o.ListenAddr))
	if err != nil {
		return fmt.Errorf("listen for the data plane: %w", err)
	}
	o.Listener = tls.NewListener(ln, server)
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: o.DialTimeout}, Config: client}
	o.Dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	return nil
}

// restOptions sets the token and TLS of the JobManager's REST API.
func (s Security) restOptions(o *rest.Options) error {
	if s.REST.Enabled() {
		c, err := security.Files{Cert: s.REST.Cert, Key: s.REST.Key}.Server()
		if err != nil {
			return fmt.Errorf("REST TLS: %w", err)
		}
		o.TLS = c
	}
	if s.RESTTokenFile != "" {
		b, err := os.ReadFile(s.RESTTokenFile)
		if err != nil {
			return fmt.Errorf("REST token: %w", err)
		}
		if o.Token = strings.TrimSpace(string(b)); o.Token == "" {
			return fmt.Errorf("REST token: %s is empty", s.RESTTokenFile)
		}
	}
	return nil
}
