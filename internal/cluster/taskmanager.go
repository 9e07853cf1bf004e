package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/network/tcp"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/grpcrpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// TaskManagerConfig configures a TaskManager process.
type TaskManagerConfig struct {
	// JobManager is the JobManager's RPC address (HOST:PORT).
	JobManager string
	// Slots is taskmanager.numberOfTaskSlots (default 1).
	Slots int
	// RPCAddr is where its TaskExecutorGateway is served
	// (taskmanager.rpc.address/port; default 127.0.0.1:0); DataAddr where
	// its data plane serves its result partitions
	// (taskmanager.data.address/port; default 127.0.0.1:0).
	RPCAddr, DataAddr string
	// DataDir is where its subtasks keep local working files (Pebble's;
	// taskmanager.state.local.root-dirs; default: the temporary directory).
	DataDir string
	// MetricsAddr is where GET /metrics serves its subtasks' metrics in
	// Prometheus' text format (metrics.reporter.prom.port; "": not
	// served; a port 0 picks a free one, see TaskManager.MetricsAddr).
	MetricsAddr string
	// NetworkMemory is the bytes of network buffers
	// (taskmanager.memory.network.size; default network's).
	NetworkMemory int64
	Heartbeat     Heartbeat
	// Builder rebuilds the registered jobs of its deployments.
	Builder funcspec.Builder
	// CachingBuilder, when set, is used in place of Builder: the builder
	// of jobs whose cached streams write and read the TaskManager's
	// cluster partitions (partitions.go).
	CachingBuilder func(cache.TaskManagerPartitions) funcspec.Builder
	// Security is the TLS of its RPC server, its data plane and its
	// calls (tls.go); only Internal applies.
	Security Security
	Logger   *slog.Logger
	// RetryMin and RetryMax bound the delay between two attempts to
	// register (defaults 100 ms and 5 s).
	RetryMin, RetryMax time.Duration
}

// TaskManager is a running TaskManager process's cluster side.
type TaskManager struct {
	cfg  TaskManagerConfig
	id   string
	log  *slog.Logger
	tm   *taskmanager.TaskManager
	net  *tcp.Manager
	locs *locations
	// partitions is its store of cluster partitions; partitionsTemp the
	// temporary directory it is in, without a DataDir.
	partitions     *cache.Store
	partitionsTemp string
	server         *grpcrpc.Server
	client         *grpcrpc.Client
	unserve        func()
	// metrics serves /metrics at metricsAddr (nil: not served).
	metrics     *http.Server
	metricsAddr net.Addr
	cancel      context.CancelFunc
	done        chan struct{}
	mu          struct {
		sync.Mutex
		registered chan struct{} // closed on every registration, then replaced
		count      int
	}
	closeOnce sync.Once
}

// StartTaskManager starts a TaskManager's servers and its registration
// loop, which registers with the JobManager and registers again whenever
// it loses it. Close stops it.
func StartTaskManager(cfg TaskManagerConfig) (_ *TaskManager, err error) {
	if cfg.JobManager == "" {
		return nil, errors.New("taskmanager: no JobManager address (--jobmanager, jobmanager.rpc.address)")
	}
	if cfg.Slots <= 0 {
		cfg.Slots = 1
	}
	if cfg.NetworkMemory <= 0 {
		cfg.NetworkMemory = network.DefaultNetworkMemory
	}
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = 100 * time.Millisecond
	}
	if cfg.RetryMax < cfg.RetryMin {
		cfg.RetryMax = max(cfg.RetryMin, 5*time.Second)
	}
	cfg.Heartbeat = cfg.Heartbeat.orDefault()
	var b [6]byte
	_, _ = rand.Read(b[:])
	id := "tm-" + hex.EncodeToString(b[:])
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("taskmanager", id)
	t := &TaskManager{cfg: cfg, id: id, log: log, locs: newLocations(), done: make(chan struct{})}
	t.mu.registered = make(chan struct{})
	defer func() {
		if err != nil {
			t.Close()
		}
	}()
	netOpts := tcp.Options{ListenAddr: cfg.DataAddr, Locate: t.locs.locate, Logger: log}
	if err := netOpts.Validate(); err != nil {
		return nil, fmt.Errorf("taskmanager: data plane: %w", err)
	}
	if err := cfg.Security.dataPlane(&netOpts); err != nil {
		return nil, fmt.Errorf("taskmanager: data plane: %w", err)
	}
	rpcOpts, err := cfg.Security.rpcOptions()
	if err != nil {
		return nil, fmt.Errorf("taskmanager: %w", err)
	}
	rpcOpts = append(rpcOpts, grpcrpc.WithLogger(log))
	t.net, err = tcp.New(netOpts)
	if err != nil {
		return nil, fmt.Errorf("taskmanager: data plane: %w", err)
	}
	if err := t.openPartitions(); err != nil {
		return nil, err
	}
	pool := network.NewBufferPool(cfg.NetworkMemory, network.DefaultBufferSize)
	t.tm = taskmanager.New(id, cfg.Slots, t.net, pool, task.Config{Logger: log, StateBackend: op.StateBackend{LocalDir: cfg.DataDir}}, log)
	if t.server, err = grpcrpc.Listen(orLoopback(cfg.RPCAddr), rpcOpts...); err != nil {
		return nil, fmt.Errorf("taskmanager: RPC: %w", err)
	}
	t.client = grpcrpc.NewClient(rpcOpts...)
	builder := cfg.Builder
	if cfg.CachingBuilder != nil {
		builder = cfg.CachingBuilder(t.clusterPartitions())
	}
	gw := taskmanager.NewGateway(t.tm, funcspec.NewTable(builder), t.client)
	if t.unserve, err = t.server.ServeTaskExecutor(taskExecutorName, releasing{locating{gw, t.locs, t.net}, t}); err != nil {
		return nil, fmt.Errorf("taskmanager: %w", err)
	}
	if cfg.MetricsAddr != "" {
		if err := t.serveMetrics(cfg.MetricsAddr); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	go t.run(ctx)
	log.Info("taskmanager started", "rpc", t.server.Addr(), "data", t.net.Addr(), "slots", cfg.Slots, "jobmanager", cfg.JobManager)
	return t, nil
}

// taskExecutorName is the endpoint of a TaskManager's gateway on its RPC
// server.
const taskExecutorName = "taskexecutor"

func orLoopback(addr string) string {
	if addr == "" {
		return "127.0.0.1:0"
	}
	return addr
}

// ID names the TaskManager.
func (t *TaskManager) ID() string { return t.id }

// DataAddr is where its data plane listens.
func (t *TaskManager) DataAddr() string { return t.net.Addr() }

// RPCAddr is where its gateway is served.
func (t *TaskManager) RPCAddr() string { return t.server.Addr() }

// Registered returns a channel closed at the next registration after the
// n-th (n = 0: the first), and the number of registrations so far.
func (t *TaskManager) Registered() (next <-chan struct{}, count int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mu.registered, t.mu.count
}

// run registers with the JobManager and, whenever the heartbeat link to it
// is lost, cancels the subtasks and registers again, with a delay that
// grows from RetryMin to RetryMax while attempts fail.
func (t *TaskManager) run(ctx context.Context) {
	defer close(t.done)
	delay := t.cfg.RetryMin
	for ctx.Err() == nil {
		link, err := t.register(ctx)
		if err != nil {
			t.log.Warn("registration with the jobmanager failed; retrying", "jobmanager", t.cfg.JobManager, "in", delay, "err", err)
			select {
			case <-time.After(delay):
			case <-ctx.Done():
			}
			delay = min(2*delay, t.cfg.RetryMax)
			continue
		}
		delay = t.cfg.RetryMin
		select {
		case <-link.Lost():
			loss, _ := link.Loss()
			n := t.tm.CancelAll()
			t.log.Warn("lost the jobmanager: cancelled the subtasks, registering again", "subtasks", n, "why", loss.String())
		case <-ctx.Done():
		}
		link.Close()
	}
}

// register links to the JobManager's heartbeats and registers the
// TaskManager's slots with its ResourceManager.
func (t *TaskManager) register(ctx context.Context) (*grpcrpc.Link, error) {
	hctx, cancel := context.WithTimeout(ctx, t.cfg.Heartbeat.Timeout)
	defer cancel()
	link, err := t.client.Heartbeat(hctx, t.cfg.JobManager, grpcrpc.HeartbeatConfig{
		ID: t.id, Interval: t.cfg.Heartbeat.Interval, Timeout: t.cfg.Heartbeat.Timeout,
	})
	if err != nil {
		return nil, err
	}
	req := &rpcpb.RegisterTaskManagerRequest{
		TaskManagerId: t.id, Address: grpcrpc.Address(t.server.Addr(), taskExecutorName), Slots: int32(t.cfg.Slots),
		Network: rpc.Capacity(t.tm.NetworkCapacity()), DataAddress: t.net.Addr(), ClusterPartitions: t.partitionReport(),
	}
	rm := t.client.ResourceManager(grpcrpc.Address(t.cfg.JobManager, minicluster.ResourceManagerName))
	r, err := rm.RegisterTaskManager(hctx, req).Wait(hctx)
	if err == nil && !r.GetAccepted() {
		err = fmt.Errorf("registration refused: %s", r.GetReason())
	}
	if err != nil {
		link.Close()
		return nil, err
	}
	t.log.Info("registered with the jobmanager", "jobmanager", t.cfg.JobManager, "slots", t.cfg.Slots)
	t.mu.Lock()
	close(t.mu.registered)
	t.mu.registered = make(chan struct{})
	t.mu.count++
	t.mu.Unlock()
	return link, nil
}

// Close deregisters from the JobManager, stops registering, cancels the
// subtasks, and stops the servers; every goroutine of the TaskManager has
// ended when it returns.
func (t *TaskManager) Close() {
	t.closeOnce.Do(func() {
		if t.client != nil {
			t.deregister()
		}
		if t.cancel != nil {
			t.cancel()
			<-t.done
		}
		if t.metrics != nil {
			_ = t.metrics.Close()
		}
		if t.unserve != nil {
			t.unserve()
		}
		if t.tm != nil {
			t.tm.Close()
		}
		if t.client != nil {
			_ = t.client.Close()
		}
		if t.server != nil {
			t.server.Close()
		}
		if t.net != nil {
			_ = t.net.Close()
		}
		if t.partitionsTemp != "" {
			_ = os.RemoveAll(t.partitionsTemp)
		}
	})
}
