package minicluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/resourcemanager"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// ClusterOptions size a session cluster.
type ClusterOptions struct {
	// TaskManagers is the number of TaskManagers it starts with (may be
	// zero: add them later).
	TaskManagers int
	// Slots is the slots of a TaskManager added without a count (default
	// 1).
	Slots int
	// NetworkMemory is the bytes of network buffers of each TaskManager
	// (default network.DefaultNetworkMemory).
	NetworkMemory int64
	Task          task.Config
	Logger        *slog.Logger
	// Builder builds the graphs of registered jobs for the TaskManagers,
	// which resolve the registered function specs of their deployments
	// with it (nil: such specs are refused). The root package injects the
	// one over weir.RegisterJob's registry.
	Builder funcspec.Builder
	// Transport carries the messages between the ResourceManager, the
	// JobMasters and the TaskManagers (nil: an rpc.Local of the cluster's
	// own). A JobManager process gives its gRPC server and client, and its
	// TaskManagers, in other processes, register through the gateway it
	// serves at ResourceManagerName.
	Transport Transport
	// JobMasterAddress is where the JobMaster of a job is served on
	// Transport (nil: jobmaster's default).
	JobMasterAddress func(jobID string) string
	// CachePartitionQuota bounds the bytes of cluster partitions each
	// TaskManager keeps (0: no bound; see resourcemanager/quota.go).
	CachePartitionQuota int64
}

// Transport is how the parts of a cluster reach each other: an *rpc.Local
// in one process, gRPC between processes.
type Transport interface {
	ServeJobMaster(addr string, g rpc.JobMasterGateway) (stop func(), err error)
	ServeTaskExecutor(addr string, g rpc.TaskExecutorGateway) (stop func(), err error)
	ServeResourceManager(addr string, g rpc.ResourceManagerGateway) (stop func(), err error)
	JobMaster(addr string) rpc.JobMasterGateway
	TaskExecutor(addr string) rpc.TaskExecutorGateway
	ResourceManager(addr string) rpc.ResourceManagerGateway
}

// ErrClosed is the error of a cluster that was closed.
var ErrClosed = errors.New("minicluster: the cluster is closed")

// Cluster is a session cluster in this process: a ResourceManager loop
// and TaskManagers that register with it, outlive jobs, run several jobs
// over time and at once, and can be added and removed while jobs run.
// Every job has its own JobMaster, to which the ResourceManager offers
// slots.
//
// Removing a TaskManager is losing it: the JobMasters of the jobs that
// had slots there fail the executions at once, the TaskManager cancels
// its subtasks and is gone, and the jobs restart, per their restart
// strategies, in the slots left or offered to them later.
type Cluster struct {
	opts       ClusterOptions
	bufferSize int
	log        *slog.Logger
	net        *network.Registry
	rm         *rmLoop
	// unserveRM stops serving the ResourceManager's gateway.
	unserveRM func()
	// transport carries the messages between the JobMasters and the
	// TaskManagers (encoded in tests); functions holds the graphs of the
	// running jobs, which deployments name by function spec.
	transport Transport
	functions *funcspec.Table
	// storages are the jobs' checkpoint storages, shared by every
	// TaskManager: a job's subtasks write through its JobMaster's.
	storages *taskmanager.Storages
	// ctx is cancelled by Close: it cancels every running job.
	ctx    context.Context
	cancel context.CancelFunc
	jobs   sync.WaitGroup

	// mu guards the TaskManagers, the running jobs' ids and closed. Lock
	// order: mu, then nothing (the ResourceManager loop is called without
	// it).
	mu struct {
		sync.Mutex
		tms     map[string]*taskmanager.TaskManager
		unserve map[string]func()
		running map[string]bool
		next    int
		closed  bool
	}
}

// NewCluster starts a session cluster with opts.TaskManagers
// TaskManagers, registered before it returns. Close releases it.
func NewCluster(opts ClusterOptions) (*Cluster, error) {
	err := nonNegative(size{"TaskManagers", int64(opts.TaskManagers)}, size{"Slots", int64(opts.Slots)}, size{"NetworkMemory", opts.NetworkMemory})
	if err != nil {
		return nil, err
	}
	if opts.Slots == 0 {
		opts.Slots = 1
	}
	if opts.NetworkMemory == 0 {
		opts.NetworkMemory = network.DefaultNetworkMemory
	}
	c := &Cluster{opts: opts, bufferSize: opts.Task.BufferSize, log: opts.Logger, net: network.NewRegistry(),
		transport: opts.Transport, functions: funcspec.NewTable(opts.Builder)}
	if c.transport == nil {
		c.transport = rpc.NewLocal()
	}
	if c.bufferSize <= 0 {
		c.bufferSize = network.DefaultBufferSize
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.rm = startRMLoop(c.transport, c.log)
	if q := opts.CachePartitionQuota; q > 0 {
		_ = c.rm.call(rmRequest{read: func(rm *resourcemanager.ResourceManager) { rm.SetPartitionQuota(q) }})
	}
	unserve, err := c.transport.ServeResourceManager(resourceManagerAddress, rmGateway{c.rm})
	if err != nil {
		c.rm.close()
		return nil, fmt.Errorf("minicluster: %w", err)
	}
	c.unserveRM = unserve
	c.opts.Task.Logger = c.log
	c.storages = taskmanager.NewStorages(c.log)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.mu.tms = make(map[string]*taskmanager.TaskManager)
	c.mu.unserve = make(map[string]func())
	c.mu.running = make(map[string]bool)
	for range opts.TaskManagers {
		if _, err := c.AddTaskManager(0); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// AddTaskManager starts a TaskManager with n slots (0: the cluster's
// Slots) and registers it with the ResourceManager, which may offer its
// slots to a waiting job before this returns. It returns the
// TaskManager's id: tm-0, tm-1, ... in the order they were added.
func (c *Cluster) AddTaskManager(n int) (string, error) {
	if n < 0 {
		return "", fmt.Errorf("minicluster: a TaskManager with %d slots", n)
	}
	if n == 0 {
		n = c.opts.Slots
	}
	c.mu.Lock()
	if c.mu.closed {
		c.mu.Unlock()
		return "", ErrClosed
	}
	id := fmt.Sprintf("tm-%d", c.mu.next)
	c.mu.next++
	pool := network.NewBufferPool(c.opts.NetworkMemory, c.bufferSize)
	tm := taskmanager.New(id, n, c.net, pool, c.opts.Task, c.log)
	tm.ShareStorages(c.storages)
	unserve, err := c.transport.ServeTaskExecutor(id, taskmanager.NewGateway(tm, c.functions, c.transport))
	if err != nil {
		c.mu.Unlock()
		tm.Close()
		return "", fmt.Errorf("minicluster: add %s: %w", id, err)
	}
	c.mu.tms[id] = tm
	c.mu.unserve[id] = unserve
	c.mu.Unlock()
	req := &rpcpb.RegisterTaskManagerRequest{TaskManagerId: id, Address: id, Slots: int32(n), Network: rpc.Capacity(tm.NetworkCapacity())}
	r, err := c.transport.ResourceManager(resourceManagerAddress).RegisterTaskManager(context.Background(), req).Wait(context.Background())
	if err == nil && !r.GetAccepted() {
		err = fmt.Errorf("registration refused: %s", r.GetReason())
	}
	if err != nil {
		c.dropTaskManager(id)
		return "", fmt.Errorf("minicluster: add %s: %w", id, err)
	}
	return id, nil
}

// RemoveTaskManager takes a TaskManager out of the cluster as if it were
// lost: the jobs with slots there are told first, then its subtasks are
// cancelled and it is closed. It returns once the TaskManager is gone.
func (c *Cluster) RemoveTaskManager(id string) error {
	c.mu.Lock()
	_, ok := c.mu.tms[id]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("minicluster: remove %s: no such TaskManager", id)
	}
	if err := c.Disconnect(id, "removed from the cluster"); err != nil {
		return fmt.Errorf("minicluster: remove %s: %w", id, err)
	}
	c.dropTaskManager(id)
	return nil
}

// Disconnect tells the ResourceManager that TaskManager id is lost for
// reason: the jobs with slots there are told before it returns. A
// JobManager process calls it for a TaskManager of another process whose
// connection closed or whose heartbeats stopped.
func (c *Cluster) Disconnect(id, reason string) error {
	m := disconnect(id, reason)
	_, err := c.transport.ResourceManager(resourceManagerAddress).DisconnectTaskManager(context.Background(), m).Wait(context.Background())
	return err
}

// dropTaskManager closes a TaskManager and forgets it.
func (c *Cluster) dropTaskManager(id string) {
	c.mu.Lock()
	tm, unserve := c.mu.tms[id], c.mu.unserve[id]
	delete(c.mu.tms, id)
	delete(c.mu.unserve, id)
	c.mu.Unlock()
	if unserve != nil {
		unserve()
	}
	if tm != nil {
		tm.Close()
	}
}

// TaskManagers describes the registered TaskManagers and their free slots.
func (c *Cluster) TaskManagers() []resourcemanager.TaskManagerInfo {
	var out []resourcemanager.TaskManagerInfo
	_ = c.rm.call(rmRequest{read: func(rm *resourcemanager.ResourceManager) { out = rm.TaskManagers() }})
	return out
}

// Close cancels the running jobs, waits for them to end, and stops the
// ResourceManager and every TaskManager; all goroutines of the cluster
// have ended when it returns. Closing twice is a no-op.
func (c *Cluster) Close() {
	c.mu.Lock()
	if c.mu.closed {
		c.mu.Unlock()
		return
	}
	c.mu.closed = true
	c.mu.Unlock()
	c.cancel()
	c.jobs.Wait()
	c.unserveRM()
	c.rm.close()
	c.mu.Lock()
	tms, unserve := c.mu.tms, c.mu.unserve
	c.mu.tms, c.mu.unserve = nil, nil
	c.mu.Unlock()
	for _, stop := range unserve {
		stop()
	}
	for _, tm := range tms {
		tm.Close()
	}
	if err := c.storages.Close(); err != nil {
		c.log.Warn("close checkpoint storage", "err", err)
	}
}

// jobMasterOptions are the JobMaster's options of a job on this cluster.
func (c *Cluster) jobMasterOptions(jobID string, o JobOptions) jobmaster.Options {
	return jobmaster.Options{
		Restart: o.Restart, Checkpoints: o.Checkpoints, RestoreFrom: o.RestoreFrom,
		AllowNonRestored: o.AllowNonRestored, Logger: c.log, SlotWait: o.SlotWait, Clock: o.Clock,
		Scheduler: o.Scheduler, Adaptive: o.Adaptive,
		Channels: network.Sizing{Credit: o.Credit, Backlog: o.Backlog},
		RPC:      c.transport, Functions: c.functions, Registered: o.Registered,
		StateBackend: o.StateBackend, JobName: o.JobName,
		Address: c.jobMasterAddress(jobID),
	}
}

// jobMasterAddress is where the JobMaster of jobID is served ("": the
// JobMaster's default).
func (c *Cluster) jobMasterAddress(jobID string) string {
	if c.opts.JobMasterAddress == nil {
		return ""
	}
	return c.opts.JobMasterAddress(jobID)
}
