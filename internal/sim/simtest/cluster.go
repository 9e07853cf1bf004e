// Package simtest is Weir's deterministic simulation tier: the real
// JobMaster (its loop stepped by the world, its work off the loop run as
// world events, its timers on the world's clock) and the real
// ResourceManager state machine, in a JobManager node, with simulated
// TaskManagers on other nodes of a sim.Network that delays messages, loses
// them and cuts connections, all driven by one seed. Every message between
// nodes crosses as bytes: the gateways' protobuf messages (Transport) and
// the TaskManagers' data messages (barriers, end of data, end of
// partition).
//
// The TaskManagers are scripted, not real: a task does no work, it goes
// RUNNING after a delay, acknowledges checkpoints after a delay, forwards
// barriers to its consumers, and its sources end after a while; delays
// and faults come from the seed. What is under test is the JobMaster's,
// the ResourceManager's, the checkpoint coordinator's and the scheduler's
// logic under reordering, delays, losses and cuts. Every run checks the
// properties in checks.go.
package simtest

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/resourcemanager"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
	"github.com/weir-engine/weir/internal/sim"
)

// Addresses and nodes of the JobManager process.
const (
	jobManagerNode  = "jobmanager"
	resourceManager = "resourcemanager"
	jobID           = "job"
)

// Span is a range of durations a delay is drawn from, uniformly.
type Span struct{ Min, Max time.Duration }

func (s Span) draw(w *sim.World) time.Duration {
	if s.Max <= s.Min {
		return s.Min
	}
	return s.Min + time.Duration(w.Rand().Int64N(int64(s.Max-s.Min)+1))
}

// TaskManagerConfig scripts a simulated TaskManager.
type TaskManagerConfig struct {
	ID    string
	Slots int
	// RegisterAt is when its process starts and registers.
	RegisterAt time.Duration
	// Deploy is how long a task takes to restore and run; Ack how long
	// a snapshot takes.
	Deploy, Ack Span
}

// Config is a simulated cluster and its job: a source and a sink vertex
// of Parallelism subtasks each, all-to-all.
type Config struct {
	Seed         uint64
	Latency      Span
	DropRate     float64
	TaskManagers []TaskManagerConfig
	Parallelism  int
	// SourceRuns is how long a source subtask runs before its input ends.
	SourceRuns Span
	// OffLoop is the delay of the JobMaster's work off its loop.
	OffLoop     Span
	SlotWait    time.Duration
	Checkpoints checkpoint.Options
	Restart     scheduler.RestartStrategy
	// Limit is the virtual time within which the job must end.
	Limit time.Duration
	// Want is the status the job must end in (default FINISHED).
	Want scheduler.JobStatus
	// RestoreFailures is how many task restores (from a checkpoint) fail.
	RestoreFailures int
	// Dir is the checkpoint storage's directory.
	Dir string
	// Logger gets the JobMaster's log (nil: none).
	Logger *slog.Logger
	// Setup runs before the job starts: a scenario sets its hooks.
	Setup func(*Cluster)
}

// Cluster is one run.
type Cluster struct {
	W   *sim.World
	Net *sim.Network
	T   *Transport
	cfg Config

	graph    *graph.JobGraph
	storage  *storage.Storage
	jmEP     *Endpoint
	rm       *resourcemanager.ResourceManager
	tmInfo   map[string]*tmInfo
	JM       *jobmaster.JobMaster
	loop     *jobmaster.Loop
	Result   *jobmaster.Result
	TMs      map[string]*TaskManager
	tmOrder  []string
	offLoop  []*offLoopTask
	data     dataPlane
	restores int

	// Hooks of a scenario, called on the driving goroutine.
	OnTrigger   func(id int64)
	OnCompleted func(id int64)
	OnSubmit    func(tm string, d *rpcpb.TaskDeploymentDescriptor)

	checks
}

// tmInfo is what the JobManager knows of a registered TaskManager.
type tmInfo struct {
	id       string
	slots    int
	capacity network.Capacity
}

// offLoopTask is a piece of the JobMaster's work off its loop.
type offLoopTask struct {
	f   func()
	ev  *sim.Event
	ran bool
}

// Run runs cfg's job to its end, or to the limit, and checks it.
func Run(cfg Config) *Cluster {
	c, err := newCluster(cfg)
	if err != nil {
		c.violate("set up: %v", err)
		return c
	}
	defer c.close()
	if cfg.Setup != nil {
		cfg.Setup(c)
	}
	if err := c.start(); err != nil {
		c.violate("start: %v", err)
		return c
	}
	err = c.W.RunUntil(func() bool { c.afterEvent(); return c.Result != nil }, cfg.Limit)
	if err != nil {
		c.violate("the job did not end: %v (status %s)", err, c.JM.Status().State)
		return c
	}
	c.checkEnd()
	return c
}

func newCluster(cfg Config) (*Cluster, error) {
	w := sim.New(cfg.Seed)
	net := sim.NewNetwork(w, sim.Faults{MinLatency: cfg.Latency.Min, MaxLatency: cfg.Latency.Max})
	c := &Cluster{W: w, Net: net, T: NewTransport(w, net), cfg: cfg, rm: resourcemanager.New(),
		tmInfo: map[string]*tmInfo{}, TMs: map[string]*TaskManager{}}
	c.checks.init()
	c.T.DropRate = cfg.DropRate
	c.T.Sent, c.T.Delivered = c.sent, c.delivered
	c.data.init(c)
	jg, err := jobGraph(cfg.Parallelism)
	if err != nil {
		return c, err
	}
	c.graph = jg
	st, err := storage.Open(context.Background(), cfg.Dir, storage.Options{})
	if err != nil {
		return c, err
	}
	c.storage = st
	c.jmEP = c.T.Endpoint(jobManagerNode)
	c.jmEP.OnLost = c.taskManagerLost
	if _, err := c.jmEP.ServeResourceManager(resourceManager, rmGateway{c}); err != nil {
		return c, err
	}
	cp := cfg.Checkpoints
	cp.Enabled = true
	c.JM, err = jobmaster.New(jobID, jg, nil, network.NewRegistry(), jobmaster.Options{
		Restart: cfg.Restart, SlotWait: cfg.SlotWait, Logger: cfg.Logger,
		Checkpoints: &jobmaster.CheckpointOptions{Options: cp, Storage: st},
		Clock:       w.Clock(), RPC: c.jmEP, Functions: funcspec.NewTable(nil), Executor: c.execute,
	})
	if err != nil {
		return c, err
	}
	for _, tc := range cfg.TaskManagers {
		tm := &TaskManager{c: c, cfg: tc, tasks: map[string]*simTask{}}
		c.TMs[tc.ID] = tm
		c.tmOrder = append(c.tmOrder, tc.ID)
		w.After(tc.RegisterAt, tm.start)
	}
	return c, nil
}

// jobGraph is the job: a source and a sink of parallelism p, all-to-all.
func jobGraph(p int) (*graph.JobGraph, error) {
	noop := func(any) (any, error) { return nil, fmt.Errorf("simtest: the simulated TaskManagers run no operator") }
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", UID: "src", Bounded: true, Factory: noop}
	sink := &graph.Transformation{ID: 2, Kind: graph.KindOperator, Name: "sink", UID: "sink", Inputs: []*graph.Transformation{src}, Factory: noop}
	sg, err := graph.Translate([]*graph.Transformation{src, sink}, graph.Config{Parallelism: p, DisableChaining: true})
	if err != nil {
		return nil, err
	}
	return graph.BuildJobGraph(sg), nil
}

// start declares the job's resources and starts the JobMaster.
func (c *Cluster) start() error {
	need := 0
	for _, v := range c.graph.Vertices {
		need = max(need, v.Parallelism)
	}
	if err := c.rm.Step(resourcemanager.DeclareResources{Job: jobID, Min: need, Max: need}); err != nil {
		return err
	}
	loop, err := c.JM.Start(context.Background())
	if err != nil {
		return err
	}
	c.loop = loop
	c.W.Tracef("job started, needs %d slots", need)
	return nil
}

// afterEvent lets the JobMaster handle what the last event queued, and
// checks what it did.
func (c *Cluster) afterEvent() {
	if c.loop == nil || c.Result != nil {
		return
	}
	res, ended := c.loop.Turn()
	c.observe()
	if ended {
		c.Result = &res
		c.W.Tracef("job ended %s after %d restarts: %d checkpoints completed, %d failed", res.Status, res.Restarts,
			res.Checkpoints.Completed, res.Checkpoints.Failed)
		if err := c.rm.Step(resourcemanager.JobEnded{Job: jobID}); err != nil {
			c.violate("the ResourceManager refused the job's end: %v", err)
		}
		c.performRM()
	}
}

// execute is the JobMaster's executor: f runs as an event of the world,
// after a delay drawn from the seed.
func (c *Cluster) execute(f func()) {
	x := &offLoopTask{f: f}
	x.ev = c.W.After(c.cfg.OffLoop.draw(c.W), func() {
		if !x.ran {
			x.ran = true
			f()
		}
	})
	c.offLoop = append(c.offLoop, x)
}

// close runs the work off the loop still pending, in order, and closes
// the JobMaster's loop and the storage.
func (c *Cluster) close() {
	for i := 0; i < len(c.offLoop); i++ {
		if x := c.offLoop[i]; !x.ran {
			x.ran = true
			x.ev.Cancel()
			x.f()
		}
	}
	c.offLoop = nil
	if c.loop != nil {
		c.loop.Close()
	}
	if c.storage != nil {
		_ = c.storage.Close()
	}
}

// rmGateway is the ResourceManager's gateway: the real state machine,
// stepped on the JobManager node.
type rmGateway struct{ c *Cluster }

func (g rmGateway) RegisterTaskManager(_ context.Context, m *rpcpb.RegisterTaskManagerRequest) *rpc.Future[*rpcpb.RegisterTaskManagerResponse] {
	c, id := g.c, m.GetTaskManagerId()
	if c.tmInfo[id] == nil { // a retry of an accepted registration is accepted again
		info := &tmInfo{id: id, slots: int(m.GetSlots()), capacity: rpc.FromCapacity(m.GetNetwork())}
		if err := c.rm.Step(resourcemanager.TaskManagerRegistered{ID: id, Slots: info.slots, Network: info.capacity}); err != nil {
			return rpc.Completed(&rpcpb.RegisterTaskManagerResponse{Reason: err.Error()}, nil)
		}
		c.tmInfo[id] = info
		c.W.Tracef("resourcemanager: %s registered with %d slots", id, info.slots)
		c.performRM()
	}
	return rpc.Completed(&rpcpb.RegisterTaskManagerResponse{Accepted: true, ResourceManagerId: resourceManager}, nil)
}

func (g rmGateway) Heartbeat(_ context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	return rpc.Completed(m, nil)
}

func (g rmGateway) DisconnectTaskManager(_ context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	g.c.taskManagerLost(m.GetTaskManagerId())
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

// taskManagerLost is the JobManager losing its connection to a node: a
// registered TaskManager there is lost, as the session cluster treats a
// TaskManager it removes.
func (c *Cluster) taskManagerLost(peer string) {
	if c.tmInfo[peer] == nil {
		return
	}
	delete(c.tmInfo, peer)
	if err := c.rm.Step(resourcemanager.TaskManagerLost{ID: peer, Reason: "connection lost"}); err != nil {
		c.violate("the ResourceManager refused the loss of %s: %v", peer, err)
	}
	c.W.Tracef("resourcemanager: %s lost", peer)
	c.performRM()
}

// performRM carries out the ResourceManager's decisions for the job.
func (c *Cluster) performRM() {
	for _, d := range c.rm.Ready() {
		switch d := d.(type) {
		case resourcemanager.OfferSlots:
			if c.Result != nil {
				continue
			}
			by := map[string][]slots.ID{}
			for _, s := range d.Slots {
				by[s.TaskManager] = append(by[s.TaskManager], s)
			}
			for _, tm := range sortedKeys(by) {
				c.W.Tracef("resourcemanager: offer %d slots of %s", len(by[tm]), tm)
				c.JM.RegisterTaskManager(jobmaster.TaskManager{ID: tm, Address: tm, Slots: by[tm], Network: c.tmInfo[tm].capacity})
			}
		case resourcemanager.NotifyLost:
			if c.Result != nil {
				continue
			}
			c.JM.DisconnectTaskManager(d.TaskManager, d.Reason)
			c.told(d.TaskManager)
		}
	}
}

// Kill ends a TaskManager's process.
func (c *Cluster) Kill(tm string) {
	t := c.TMs[tm]
	if t == nil || t.ep == nil || t.ep.Dead() {
		return
	}
	c.W.Tracef("kill %s", tm)
	t.ep.Kill()
}

// Trace is the run's trace, one line per event.
func (c *Cluster) Trace() []string { return c.W.Trace() }

// Busy lists the live TaskManagers that run a task, in a fixed order.
func (c *Cluster) Busy() []string {
	var out []string
	for _, id := range c.tmOrder {
		tm := c.TMs[id]
		if !tm.alive() {
			continue
		}
		for _, t := range tm.tasks {
			if !t.terminal() {
				out = append(out, id)
				break
			}
		}
	}
	return out
}

// FailTask fails a running task, drawn from the seed; it reports false
// when none runs.
func (c *Cluster) FailTask(cause string) bool {
	var run []*simTask
	for _, id := range c.tmOrder {
		tm := c.TMs[id]
		if !tm.alive() {
			continue
		}
		for _, name := range sortedKeys(tm.tasks) {
			if t := tm.tasks[name]; t.state == running {
				run = append(run, t)
			}
		}
	}
	if len(run) == 0 {
		return false
	}
	run[c.W.Rand().IntN(len(run))].fail(fmt.Errorf("injected: %s", cause))
	return true
}

// Lossless reports whether the run's network loses no message.
func (c *Cluster) Lossless() bool { return c.cfg.DropRate == 0 }
