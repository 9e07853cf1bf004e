package tcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/network"
)

// Options configures a Manager. The zero value of each field but Locate
// has a documented default.
type Options struct {
	// Listener, when set, is where the Manager accepts the connections
	// of consumers (a TLS listener, say); it then owns and closes it.
	// Otherwise it listens on ListenAddr.
	Listener net.Listener
	// ListenAddr is the TCP address to listen on; default 127.0.0.1:0.
	ListenAddr string
	// Locate names the data address (another Manager's Addr) of the
	// TaskManager that produces a partition; this Manager's own Addr or ""
	// means this TaskManager. Required.
	Locate func(network.PartitionID) (string, error)
	// Dial opens a connection to a producer's TaskManager; default a
	// net.Dialer with DialTimeout.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// DialTimeout bounds a dial; default 10 s.
	DialTimeout time.Duration
	// MaxPayload is the largest frame payload sent or accepted; default
	// DefaultMaxPayload.
	MaxPayload int
	// Logger gets a line for every connection that closes on an error;
	// default slog.Default().
	Logger *slog.Logger
}

// Validate checks o and fills its defaults.
func (o *Options) Validate() error {
	if o.Locate == nil {
		return errors.New("tcp: Options.Locate is required")
	}
	if o.ListenAddr == "" {
		o.ListenAddr = "127.0.0.1:0"
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	if o.Dial == nil {
		d := &net.Dialer{Timeout: o.DialTimeout}
		o.Dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	}
	if o.MaxPayload <= 0 {
		o.MaxPayload = DefaultMaxPayload
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// Manager is the TCP network.ConnectionManager of one TaskManager. It
// serves the partitions of the TaskManager's producers to the
// TaskManagers that consume them, and connects its consumers' input
// channels to the partitions of other TaskManagers: one TCP connection per
// pair of TaskManagers, dialed by the consumer's side, with one logical
// channel per input channel. Partitions produced and consumed in this
// TaskManager connect in memory, as in network.Registry.
type Manager struct {
	opts  Options
	ln    net.Listener
	local *network.Registry
	wg    sync.WaitGroup
	mu    struct {
		sync.Mutex
		closed bool
		// clients are the connections this Manager dialed, by address.
		clients map[string]*dialing
		// servers are the connections it accepted.
		servers map[*conn]struct{}
	}
}

// dialing is a client connection, or the dial that will make one.
type dialing struct {
	ready chan struct{}
	cl    *client
	err   error
}

var _ network.ConnectionManager = (*Manager)(nil)

// New starts a Manager listening for consumers.
func New(o Options) (*Manager, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ln := o.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", o.ListenAddr); err != nil {
			return nil, fmt.Errorf("tcp: listen for the data plane: %w", err)
		}
	}
	m := &Manager{opts: o, ln: ln, local: network.NewRegistry()}
	m.mu.clients = make(map[string]*dialing)
	m.mu.servers = make(map[*conn]struct{})
	m.wg.Add(1)
	go m.accept()
	return m, nil
}

// Addr is the address consumers dial.
func (m *Manager) Addr() string { return m.ln.Addr().String() }

// RegisterPartition implements network.ConnectionManager.
func (m *Manager) RegisterPartition(p *network.ResultPartition) error {
	return m.local.RegisterPartition(p)
}

// RequestSubpartition implements network.ConnectionManager: a partition of
// this TaskManager connects in memory, one of another over its
// connection, dialed first if there is none.
func (m *Manager) RequestSubpartition(id network.PartitionID, sub int, ch *network.InputChannel) error {
	addr, err := m.opts.Locate(id)
	if err != nil {
		return fmt.Errorf("tcp: locate %v: %w", id, err)
	}
	if addr == "" || addr == m.Addr() {
		return m.local.RequestSubpartition(id, sub, ch)
	}
	cl, err := m.client(addr)
	if err != nil {
		return fmt.Errorf("tcp: request %v subpartition %d: %w", id, sub, err)
	}
	return cl.request(id, sub, ch)
}

// ReleaseJob implements network.ConnectionManager for the partitions this
// TaskManager produces; their remote consumers' channels are released
// with them (their tasks of that generation are cancelled).
func (m *Manager) ReleaseJob(job string, generation int) { m.local.ReleaseJob(job, generation) }

// Close stops listening, closes every connection (their channels fail)
// and waits for the Manager's goroutines.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.mu.closed {
		m.mu.Unlock()
		return nil
	}
	m.mu.closed = true
	var conns []*conn
	for c := range m.mu.servers {
		conns = append(conns, c)
	}
	var dials []*dialing
	for _, d := range m.mu.clients {
		dials = append(dials, d)
	}
	m.mu.Unlock()
	for _, d := range dials {
		<-d.ready // a dial is bounded by DialTimeout
		if d.cl != nil {
			conns = append(conns, d.cl.c)
		}
	}
	err := m.ln.Close()
	for _, c := range conns {
		c.close(errors.New("tcp: the TaskManager's connection manager closed"))
	}
	m.wg.Wait()
	return err
}

func (m *Manager) accept() {
	defer m.wg.Done()
	for {
		nc, err := m.ln.Accept()
		if err != nil {
			m.mu.Lock()
			closed := m.mu.closed
			m.mu.Unlock()
			if !closed {
				m.opts.Logger.Error("data plane stopped accepting connections", "addr", m.Addr(), "err", err)
			}
			return
		}
		c := newConn(nc, m.opts.MaxPayload)
		sv := &server{m: m, c: c}
		sv.mu.senders = make(map[uint32]*sender)
		m.mu.Lock()
		if m.mu.closed {
			m.mu.Unlock()
			_ = nc.Close()
			continue
		}
		m.mu.servers[c] = struct{}{}
		c.start(&closeHook{side: sv, after: func(err error) {
			m.logClose(c, err)
			m.mu.Lock()
			delete(m.mu.servers, c)
			m.mu.Unlock()
		}}, &m.wg)
		m.mu.Unlock()
	}
}

// client returns the connection to addr, dialing it once.
func (m *Manager) client(addr string) (*client, error) {
	m.mu.Lock()
	if m.mu.closed {
		m.mu.Unlock()
		return nil, errors.New("the connection manager is closed")
	}
	d, ok := m.mu.clients[addr]
	if !ok {
		d = &dialing{ready: make(chan struct{})}
		m.mu.clients[addr] = d
	}
	m.mu.Unlock()
	if ok {
		<-d.ready
		return d.cl, d.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.opts.DialTimeout)
	nc, err := m.opts.Dial(ctx, addr)
	cancel()
	if err != nil {
		d.err = fmt.Errorf("dial TaskManager %s: %w", addr, err)
		m.mu.Lock()
		delete(m.mu.clients, addr)
		m.mu.Unlock()
		close(d.ready)
		return nil, d.err
	}
	c := newConn(nc, m.opts.MaxPayload)
	cl := &client{m: m, c: c}
	cl.mu.fetchers = make(map[uint32]*fetcher)
	m.mu.Lock()
	if m.mu.closed {
		d.err = errors.New("the connection manager is closed")
		_ = nc.Close()
	} else {
		d.cl = cl
		c.start(&closeHook{side: cl, after: func(err error) { m.logClose(c, err) }}, &m.wg)
	}
	m.mu.Unlock()
	close(d.ready)
	return d.cl, d.err
}

// forget drops a closed client connection, so that the next request to
// its address dials again.
func (m *Manager) forget(cl *client) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for addr, d := range m.mu.clients {
		if d.cl == cl {
			delete(m.mu.clients, addr)
		}
	}
}

func (m *Manager) logClose(c *conn, err error) {
	m.mu.Lock()
	closing := m.mu.closed
	m.mu.Unlock()
	if !closing {
		m.opts.Logger.Warn("data plane connection closed", "local", c.nc.LocalAddr().String(), "peer", c.peer, "err", err)
	}
}

// closeHook runs after the side's cleanup when a connection closes.
type closeHook struct {
	side
	after func(error)
}

func (h *closeHook) closed(err error) {
	h.side.closed(err)
	h.after(err)
}

// Connections is the number of open connections this Manager dialed (to
// producers) and accepted (from consumers).
func (m *Manager) Connections() (dialed, accepted int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range m.mu.clients {
		select {
		case <-d.ready:
			if d.cl != nil && !d.cl.c.isClosed() {
				dialed++
			}
		default:
		}
	}
	return dialed, len(m.mu.servers)
}
