package rest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"
)

// Server serves the REST API over a Dispatcher. Build it with NewServer;
// run it with Serve or Start; stop it with the context of Serve or with
// Close. It serves one listener in its life.
type Server struct {
	d       Dispatcher
	opts    Options
	handler http.Handler
	commit  string // the binary's VCS revision, for "flink-commit"

	// ctx is the parent of the savepoint operations; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	// wg counts the running savepoint operations.
	wg        sync.WaitGroup
	closeOnce sync.Once
	// deletes are the results of dataset deletions (datasets.go).
	deletes datasetDeletes

	// Lock order: mu is a leaf; nothing is called with it held.
	mu struct {
		sync.Mutex
		closed   bool // no new operations; set by closeTriggers
		serving  bool // Serve was called
		triggers map[triggerKey]*trigger
		order    []triggerKey // trigger keys, oldest first
		// changed is closed and replaced when an operation starts, ends
		// or its result is read (AwaitResultsRead waits on it).
		changed chan struct{}
		// stop and served belong to Start's serving goroutine.
		stop   context.CancelFunc
		served chan struct{}
		err    error // what Start's Serve returned
	}
}

// NewServer returns a server of d's jobs. Zero options take their
// defaults (Options.EnsureDefaults); NewServer panics on a nil Dispatcher
// or invalid options, which are bugs of the caller.
func NewServer(d Dispatcher, opts Options) *Server {
	if d == nil {
		panic("rest: NewServer with a nil Dispatcher")
	}
	opts = opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	s := &Server{d: d, opts: opts, commit: vcsRevision()}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mu.triggers = make(map[triggerKey]*trigger)
	s.mu.changed = make(chan struct{})
	s.handler = requireToken(opts.Token, s.routes())
	return s
}

// Handler returns the API's HTTP handler, for tests and for embedding in
// another server; the caller must Close the Server to stop the savepoint
// operations.
func (s *Server) Handler() http.Handler { return s.handler }

// Listen listens on the TCP address addr (HOST:PORT; port 0 picks a free
// one). A missing host means 127.0.0.1: the API is reachable from other
// machines only when asked for by name, as DESIGN.md wants.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("rest: listen on %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	return ln, nil
}

// Serve answers requests on ln until ctx ends or Close is called, then
// shuts down gracefully: it stops accepting, waits up to
// Options.ShutdownTimeout for requests in flight, cancels the running
// savepoint operations and waits for them. It returns nil after such a
// shutdown, and the listener's error if serving failed. ln is closed
// when Serve returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := s.claim(nil, nil); err != nil {
		ln.Close()
		return err
	}
	return s.serve(ctx, ln)
}

// claim marks the server as serving (it serves one listener in its life)
// and records Start's way to stop its serving, in one step so that a
// concurrent Close sees both or neither.
func (s *Server) claim(stop context.CancelFunc, served chan struct{}) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.mu.closed:
		return ErrClosed
	case s.mu.serving:
		return errors.New("rest: the server is already serving")
	}
	s.mu.serving = true
	s.mu.stop, s.mu.served = stop, served
	return nil
}

// serve is Serve after claim.
func (s *Server) serve(ctx context.Context, ln net.Listener) error {
	if s.opts.TLS != nil {
		ln = tls.NewListener(ln, s.opts.TLS)
	}
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	var err error
	select {
	case err = <-served:
		err = fmt.Errorf("rest: serving %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	case <-s.ctx.Done():
	}
	if err == nil {
		sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
		if serr := hs.Shutdown(sctx); serr != nil {
			s.opts.Logger.Warn("rest: shutdown timed out; closing connections", "err", serr)
			hs.Close()
		}
		cancel()
		<-served // http.ErrServerClosed
	}
	s.closeTriggers()
	return err
}

// Start listens on addr (see Listen) and serves there in the background
// until Close. It returns the bound address, the one to print when addr
// asked for port 0.
func (s *Server) Start(addr string) (string, error) {
	ln, err := Listen(addr)
	if err != nil {
		return "", err
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan struct{})
	if err := s.claim(stop, served); err != nil {
		stop()
		ln.Close()
		return "", err
	}
	go func() {
		defer close(served)
		err := s.serve(ctx, ln)
		s.mu.Lock()
		s.mu.err = err
		s.mu.Unlock()
	}()
	return ln.Addr().String(), nil
}

// Close stops the server: the serving of Start (a Serve of the caller's
// own returns too), and the savepoint operations, whose context it
// cancels and which it waits for. It returns the error that ended Start's
// serving, if any. Close may be called more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	stop, served := s.mu.stop, s.mu.served
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-served
	}
	s.closeTriggers()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.err
}

// closeTriggers refuses new operations, cancels the running ones and
// waits for them.
func (s *Server) closeTriggers() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.mu.closed = true
		s.mu.Unlock()
		s.cancel()
		s.wg.Wait()
	})
}

// changedLocked wakes AwaitResultsRead.
func (s *Server) changedLocked() {
	close(s.mu.changed)
	s.mu.changed = make(chan struct{})
}

// AwaitResultsRead blocks until every savepoint operation the server
// started has ended and a client has read its result (GET
// .../savepoints/:triggerid), or ctx ends, whose error it then returns.
// An embedded server calls it after its job ended, before Close, so that
// a 'weir stop' polling for the savepoint that ended the job gets its
// answer; with no operation it returns at once.
func (s *Server) AwaitResultsRead(ctx context.Context) error {
	for {
		s.mu.Lock()
		unread := false
		for _, t := range s.mu.triggers {
			if !t.done || !t.read {
				unread = true
				break
			}
		}
		changed := s.mu.changed
		s.mu.Unlock()
		if !unread {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// vcsRevision is the VCS revision the binary was built from, "" if
// unknown.
func vcsRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, kv := range bi.Settings {
		if kv.Key == "vcs.revision" {
			return kv.Value
		}
	}
	return ""
}
