package cluster

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rest/api"
	"github.com/weir-engine/weir/internal/rpc/grpcrpc"
	"github.com/weir-engine/weir/internal/rpc/heartbeat"
	"github.com/weir-engine/weir/internal/runner"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
)

// JobManagerConfig configures a JobManager process.
type JobManagerConfig struct {
	// RPCAddr is where the TaskManagers reach it (jobmanager.rpc.address
	// and jobmanager.rpc.port); RESTAddr where clients do (rest.address,
	// rest.port). Port 0 takes a free port.
	RPCAddr, RESTAddr string
	// CheckpointDir is the default checkpoint directory of its jobs
	// (state.checkpoints.dir); SavepointDir the default directory of
	// savepoints (state.savepoints.dir, default: under CheckpointDir).
	// Both must be reachable by every TaskManager at the same path.
	CheckpointDir, SavepointDir string
	// HAStorageDir is where the JobManager keeps its jobs for the one
	// started after it (high-availability.storageDir; default
	// CheckpointDir): see harecover.go.
	HAStorageDir string
	// Heartbeat is heartbeat.interval and heartbeat.timeout.
	Heartbeat Heartbeat
	// SlotWait is how long a job waits for enough slots at its start and
	// at every restart (slot.request.timeout).
	SlotWait time.Duration
	// Security is the TLS of its RPC and REST servers and the REST
	// API's token (tls.go).
	Security Security
	// Scheduler is the scheduler of its jobs (jobmanager.scheduler):
	// "adaptive" or "default" ("": adaptive for a streaming job, default
	// for a batch one). Adaptive configures the adaptive scheduler: its
	// mode (scheduler-mode: reactive) and its resource wait timeout
	// (jobmanager.adaptive-scheduler.resource-wait-timeout).
	Scheduler string
	Adaptive  adaptive.Options
	// CacheQuota bounds the bytes of cluster partitions each TaskManager
	// keeps (0: no bound): beyond it the least recently used datasets'
	// are evicted.
	CacheQuota int64
	Logger     *slog.Logger
}

// Heartbeat is the heartbeat interval and timeout of a link between a
// TaskManager and the JobManager. A closed connection is a loss at once,
// whatever the timeout.
type Heartbeat struct {
	Interval, Timeout time.Duration
}

// The defaults of the configuration.
const (
	DefaultHeartbeatInterval = 1 * time.Second
	DefaultHeartbeatTimeout  = 10 * time.Second
	DefaultSlotWait          = 5 * time.Minute
)

func (h Heartbeat) orDefault() Heartbeat {
	if h.Interval <= 0 {
		h.Interval = DefaultHeartbeatInterval
	}
	if h.Timeout <= 0 {
		h.Timeout = max(DefaultHeartbeatTimeout, 2*h.Interval)
	}
	return h
}

// jobManagerID names the JobManager in its heartbeats.
const jobManagerID = "jobmanager"

// JobManager is a running JobManager process's cluster side.
type JobManager struct {
	cfg        JobManagerConfig
	log        *slog.Logger
	server     *grpcrpc.Server
	client     *grpcrpc.Client
	cluster    *minicluster.Cluster
	dispatcher *Dispatcher
	rest       *rest.Server
	restAddr   string
	unserveHB  func()
	lost       sync.WaitGroup
	closeOnce  sync.Once
}

// StartJobManager starts a JobManager: its RPC server, the session
// cluster with no TaskManager yet, and the REST server. Close stops it.
func StartJobManager(cfg JobManagerConfig, jobs Jobs) (_ *JobManager, err error) {
	if cfg.CheckpointDir == "" {
		return nil, errors.New("jobmanager: no checkpoint directory (--checkpoint-dir, state.checkpoints.dir)")
	}
	abs, err := filepath.Abs(cfg.CheckpointDir)
	if err != nil {
		return nil, fmt.Errorf("jobmanager: checkpoint directory: %w", err)
	}
	cfg.CheckpointDir = abs
	if cfg.SavepointDir != "" {
		if cfg.SavepointDir, err = filepath.Abs(cfg.SavepointDir); err != nil {
			return nil, fmt.Errorf("jobmanager: savepoint directory: %w", err)
		}
	}
	if cfg.HAStorageDir == "" {
		cfg.HAStorageDir = cfg.CheckpointDir
	}
	if cfg.HAStorageDir, err = filepath.Abs(cfg.HAStorageDir); err != nil {
		return nil, fmt.Errorf("jobmanager: HA storage directory: %w", err)
	}
	cfg.Heartbeat = cfg.Heartbeat.orDefault()
	if cfg.SlotWait <= 0 {
		cfg.SlotWait = DefaultSlotWait
	}
	if err := cfg.Adaptive.WithDefaults().Validate(); err != nil {
		return nil, fmt.Errorf("jobmanager: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	jm := &JobManager{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			jm.Close()
		}
	}()
	store, err := openHAStore(cfg.HAStorageDir)
	if err != nil {
		return nil, fmt.Errorf("jobmanager: %w", err)
	}
	rpcOpts, err := cfg.Security.rpcOptions()
	if err != nil {
		return nil, fmt.Errorf("jobmanager: %w", err)
	}
	rpcOpts = append(rpcOpts, grpcrpc.WithLogger(log))
	if jm.server, err = grpcrpc.Listen(cfg.RPCAddr, rpcOpts...); err != nil {
		return nil, fmt.Errorf("jobmanager: RPC: %w", err)
	}
	jm.client = grpcrpc.NewClient(rpcOpts...)
	t := transport{server: jm.server, client: jm.client}
	jm.cluster, err = minicluster.NewCluster(minicluster.ClusterOptions{
		Logger: log, Transport: t, CachePartitionQuota: cfg.CacheQuota,
		JobMasterAddress: func(jobID string) string { return grpcrpc.Address(jm.server.Addr(), "jobmaster/"+jobID) },
	})
	if err != nil {
		return nil, fmt.Errorf("jobmanager: %w", err)
	}
	jm.unserveHB, err = jm.server.ServeHeartbeats(grpcrpc.HeartbeatConfig{
		ID: jobManagerID, Interval: cfg.Heartbeat.Interval, Timeout: cfg.Heartbeat.Timeout, OnLost: jm.taskManagerLost,
	})
	if err != nil {
		return nil, fmt.Errorf("jobmanager: heartbeats: %w", err)
	}
	defaults := api.EngineOptions{CheckpointDir: cfg.CheckpointDir, SavepointDir: cfg.SavepointDir}
	h := newHA(store, log)
	session := runner.Session{Cluster: jm.cluster, SlotWait: cfg.SlotWait, OnCheckpoint: h.checkpointed, Scheduler: cfg.Scheduler, Adaptive: cfg.Adaptive}
	jm.dispatcher = newDispatcher(jobs, jm.cluster, session, defaults, h, log)
	if err := jm.dispatcher.recover(); err != nil {
		return nil, fmt.Errorf("jobmanager: recover the jobs: %w", err)
	}
	restOpts := rest.Options{Logger: log, Datasets: datasets{jm.cluster}}
	if err := cfg.Security.restOptions(&restOpts); err != nil {
		return nil, fmt.Errorf("jobmanager: %w", err)
	}
	jm.rest = rest.NewServer(jm.dispatcher, restOpts)
	if jm.restAddr, err = jm.rest.Start(cfg.RESTAddr); err != nil {
		return nil, fmt.Errorf("jobmanager: REST: %w", err)
	}
	log.Info("jobmanager started", "rpc", jm.RPCAddr(), "rest", jm.restAddr, "checkpoints", cfg.CheckpointDir, "ha", cfg.HAStorageDir)
	return jm, nil
}

// taskManagerLost is the heartbeat's verdict on a TaskManager: its
// connection closed, or it was silent for the timeout. The
// ResourceManager takes its slots away and tells the jobs that had some.
func (jm *JobManager) taskManagerLost(loss heartbeat.Loss) {
	jm.log.Warn("taskmanager lost", "taskmanager", loss.Target, "why", loss.String())
	jm.lost.Add(1)
	go func() { // OnLost must not block
		defer jm.lost.Done()
		if err := jm.cluster.Disconnect(loss.Target, "TaskManager "+loss.Target+" lost: "+loss.String()); err != nil {
			jm.log.Debug("disconnect a lost taskmanager", "taskmanager", loss.Target, "err", err)
		}
	}()
}

// RPCAddr is the address TaskManagers reach the JobManager at.
func (jm *JobManager) RPCAddr() string { return jm.server.Addr() }

// RESTAddr is the address of the REST API.
func (jm *JobManager) RESTAddr() string { return jm.restAddr }

// Dispatcher is the JobManager's dispatcher.
func (jm *JobManager) Dispatcher() *Dispatcher { return jm.dispatcher }

// Close stops the REST server, cancels the jobs, and stops the cluster and
// the RPC server; every goroutine of the JobManager has ended when it
// returns. The jobs it cancels stay RUNNING in the HA store: a JobManager
// started with the same HA storage directory recovers them.
func (jm *JobManager) Close() {
	jm.closeOnce.Do(func() {
		if jm.rest != nil {
			_ = jm.rest.Close()
		}
		if jm.dispatcher != nil {
			jm.dispatcher.close()
		}
		if jm.unserveHB != nil {
			jm.unserveHB()
		}
		jm.lost.Wait()
		if jm.cluster != nil {
			jm.cluster.Close()
		}
		if jm.client != nil {
			_ = jm.client.Close()
		}
		if jm.server != nil {
			jm.server.Close()
		}
	})
}
