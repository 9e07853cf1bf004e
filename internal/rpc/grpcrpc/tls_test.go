package grpcrpc_test

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/rpc/grpcrpc"
	"github.com/weir-engine/weir/internal/security"
	"github.com/weir-engine/weir/internal/security/securitytest"
)

// logLines records a logger's lines and lets a test await one.
type logLines struct {
	mu      sync.Mutex
	text    strings.Builder
	changed chan struct{}
}

func newLogLines() *logLines { return &logLines{changed: make(chan struct{})} }

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *logLines) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// await waits until the log has n lines with every part.
func (l *logLines) await(t *testing.T, n int, parts ...string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		l.mu.Lock()
		text, changed := l.text.String(), l.changed
		l.mu.Unlock()
		count := 0
		for _, line := range strings.Split(text, "\n") {
			found := true
			for _, p := range parts {
				found = found && strings.Contains(line, p)
			}
			if found {
				count++
			}
		}
		if count >= n {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("fewer than %d log lines with %q in 20 s; log:\n%s", n, parts, text)
		}
	}
}

func mutual(t *testing.T, f security.Files) (server, client *tls.Config) {
	t.Helper()
	s, c, err := f.Mutual()
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// A server with mutual TLS links only with clients that hold a
// certificate of its CA: one of another CA, or no TLS at all, is refused
// and the server says why.
func TestMutualTLSAdmitsOnlyTheClusterCertificate(t *testing.T) {
	ca := securitytest.NewCA(t, "cluster")
	srvTLS, _ := mutual(t, ca.Issue(t, "jobmanager"))
	_, goodTLS := mutual(t, ca.Issue(t, "taskmanager"))
	stranger := securitytest.NewCA(t, "stranger").Issue(t, "taskmanager")
	_, strangerTLS := mutual(t, stranger)
	// A client that trusts the cluster's CA but holds another's
	// certificate, or none: the server must refuse it.
	stranger.CA = ca.File()
	_, impostorTLS := mutual(t, stranger)
	noCertTLS := impostorTLS.Clone()
	noCertTLS.Certificates = nil
	log := newLogLines()
	srv, err := grpcrpc.Listen("127.0.0.1:0", grpcrpc.WithTLS(srvTLS, nil), grpcrpc.WithLogger(log.logger()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	stop, err := srv.ServeHeartbeats(helperConfig("server"))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	refused := 0
	for _, tt := range []struct {
		name string
		tls  *tls.Config
		ok   bool
	}{
		{"the cluster's certificate", goodTLS, true},
		{"another CA's certificate", strangerTLS, false},
		{"a certificate of another CA, trusting the cluster's", impostorTLS, false},
		{"no certificate, trusting the cluster's", noCertTLS, false},
		{"no TLS", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := grpcrpc.NewClient(grpcrpc.WithTLS(nil, tt.tls), grpcrpc.WithLogger(slog.New(slog.DiscardHandler)))
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			link, err := c.Heartbeat(ctx, srv.Addr(), helperConfig("client"))
			if tt.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				link.Close()
				return
			}
			if err == nil {
				link.Close()
				t.Fatal("linked without the cluster's certificate")
			}
			refused++
			log.await(t, refused, "grpcrpc: closed a connection")
		})
	}
}

// Bytes that are not gRPC, whole or cut short, close their connection
// with a log line naming the peer, and the server goes on serving.
func TestGarbageClosesItsConnection(t *testing.T) {
	log := newLogLines()
	srv, err := grpcrpc.Listen("127.0.0.1:0", grpcrpc.WithLogger(log.logger()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	stop, err := srv.ServeHeartbeats(helperConfig("server"))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, tt := range []struct {
		name, send, log string
	}{
		{"an HTTP/1 request", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "does not speak gRPC"},
		{"random bytes", "\x00\xff\x13\x37garbage that is long enough", "does not speak gRPC"},
		{"a truncated preface", "PRI * HTTP/2.0\r\n", "no HTTP/2 preface"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tt.send); err != nil {
				t.Fatal(err)
			}
			if c, ok := conn.(*net.TCPConn); ok && tt.log == "no HTTP/2 preface" {
				_ = c.CloseWrite() // the rest never comes
			}
			if _, err := io.ReadAll(conn); err != nil && !strings.Contains(err.Error(), "reset") {
				t.Fatalf("reading until the server closes: %v", err)
			}
			log.await(t, 1, tt.log, "remote="+conn.LocalAddr().String())
		})
	}
	c := grpcrpc.NewClient(grpcrpc.WithLogger(slog.New(slog.DiscardHandler)))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	link, err := c.Heartbeat(ctx, srv.Addr(), helperConfig("client"))
	if err != nil {
		t.Fatalf("the server stopped serving after garbage: %v", err)
	}
	link.Close()
}
