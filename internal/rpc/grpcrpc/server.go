package grpcrpc

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/grpc"
)

// Server serves gateways over gRPC on one listen address. It is safe for
// concurrent use.
type Server struct {
	lis    net.Listener
	gs     *grpc.Server
	log    *slog.Logger
	served chan struct{} // closed when grpc.Server.Serve returned

	jobMasters      registry[rpc.JobMasterGateway]
	taskExecutors   registry[rpc.TaskExecutorGateway]
	resourceManager registry[rpc.ResourceManagerGateway]

	hbMu struct {
		sync.Mutex
		edge *edge
	}
	closeOnce sync.Once
}

// MaxMessageSize is the largest message a Server or a Client receives
// (gRPC's default is 4 MiB; a deployment that restores many state handles
// can be larger). A larger one breaks the stream it came on.
const MaxMessageSize = 64 << 20

// Option configures a Server or a Client.
type Option func(*options)

type options struct {
	log                  *slog.Logger
	serverTLS, clientTLS *tls.Config
}

// WithLogger logs to l instead of slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

func buildOptions(opts []Option) options {
	o := options{log: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Listen listens on addr ("127.0.0.1:0" picks a free port; see Addr) and
// serves gRPC there until Close.
func Listen(addr string, opts ...Option) (*Server, error) {
	o := buildOptions(opts)
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("grpcrpc: listen on %s: %w", addr, err)
	}
	s := &Server{lis: lis, gs: grpc.NewServer(grpc.MaxRecvMsgSize(MaxMessageSize), grpc.Creds(o.serverCreds())), log: o.log, served: make(chan struct{})}
	s.jobMasters.kind = "JobMaster"
	s.taskExecutors.kind = "TaskExecutor"
	s.resourceManager.kind = "ResourceManager"
	rpcpb.RegisterJobMasterServiceServer(s.gs, jobMasterServer{s: s})
	rpcpb.RegisterTaskExecutorServiceServer(s.gs, taskExecutorServer{s: s})
	rpcpb.RegisterResourceManagerServiceServer(s.gs, resourceManagerServer{s: s})
	rpcpb.RegisterHeartbeatServiceServer(s.gs, heartbeatServer{s: s})
	go func() {
		defer close(s.served)
		if err := s.gs.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			s.log.Error("grpcrpc: serve", "addr", lis.Addr().String(), "err", err)
		}
	}()
	return s, nil
}

// Addr is the address the server listens on, as clients dial it.
func (s *Server) Addr() string { return s.lis.Addr().String() }

// Close stops serving at once: it closes the listener and every
// connection (callers see their calls fail, heartbeat peers see the
// stream break), and waits until the server's goroutines are done.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.hbMu.Lock()
		e := s.hbMu.edge
		s.hbMu.edge = nil
		s.hbMu.Unlock()
		if e != nil {
			e.close()
		}
		s.gs.Stop()
		<-s.served
	})
}

// ServeJobMaster serves g under name (Address(s.Addr(), name) reaches it)
// until the returned stop is called.
func (s *Server) ServeJobMaster(name string, g rpc.JobMasterGateway) (stop func(), err error) {
	return s.jobMasters.serve(name, g)
}

// ServeTaskExecutor serves g under name until the returned stop is called.
func (s *Server) ServeTaskExecutor(name string, g rpc.TaskExecutorGateway) (stop func(), err error) {
	return s.taskExecutors.serve(name, g)
}

// ServeResourceManager serves g under name until the returned stop is
// called.
func (s *Server) ServeResourceManager(name string, g rpc.ResourceManagerGateway) (stop func(), err error) {
	return s.resourceManager.serve(name, g)
}

// registry maps endpoint names to the gateways of one kind.
type registry[G any] struct {
	kind string
	mu   sync.Mutex
	m    map[string]G
}

func (r *registry[G]) serve(name string, g G) (func(), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]G{}
	}
	if _, dup := r.m[name]; dup {
		return nil, fmt.Errorf("grpcrpc: %s endpoint %q is already served", r.kind, name)
	}
	r.m[name] = g
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			delete(r.m, name)
		})
	}, nil
}

func (r *registry[G]) lookup(name string) (G, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.m[name]
	return g, ok
}
