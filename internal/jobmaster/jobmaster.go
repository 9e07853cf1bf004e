// Package jobmaster owns one job while it runs: its event loop is the only
// goroutine that touches the job's scheduler and checkpoint coordinator,
// both pure state machines. TaskManagers, timers (of the injected clock)
// and the goroutines that make its storage calls (metadata, discards, a
// generation's restore metadata) report into the loop's queue; the loop
// steps the state machines and performs the actions they decide (deploy,
// cancel, trigger, persist, notify), which are the only side effects here.
// Tasks write and read their state on their TaskManagers: only handles
// reach the JobMaster.
package jobmaster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weir-engine/weir/internal/alignment"
	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/queue"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/scheduler/slots"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// TaskManager is what the JobMaster knows of a TaskManager, the data of
// a slot offer (rpcpb.OfferSlotsRequest): its id, the address of its
// rpc.TaskExecutorGateway, the slots offered and its network memory. The
// JobMaster reaches it only through the gateway (see Options.RPC).
type TaskManager struct {
	ID string
	// Address is where its gateway is served ("": at ID).
	Address string
	Slots   []slots.ID
	Network network.Capacity
	// DataAddress is where its data plane serves its result partitions
	// ("": in this process, the network the JobMaster was given).
	DataAddress string
}

// address is where tm's gateway is served.
func (tm TaskManager) address() string {
	if tm.Address == "" {
		return tm.ID
	}
	return tm.Address
}

// Transport is how the JobMaster reaches its TaskManagers and is reached by
// them: an *rpc.Local in process.
type Transport interface {
	TaskExecutor(addr string) rpc.TaskExecutorGateway
	ServeJobMaster(addr string, g rpc.JobMasterGateway) (stop func(), err error)
}

// VertexMetrics are a vertex's counters summed over its subtasks.
type VertexMetrics struct {
	ID                    int
	Name                  string
	Parallelism           int
	RecordsIn, RecordsOut int64
	// MaxParallelism is the vertex's number of key groups.
	MaxParallelism int
	// Source is set for a source vertex; SourceEmitted and SourceTotal
	// are then its subtasks' progress through their input summed, in the
	// source's unit (SourceTotal -1 while a subtask does not know its
	// size or has not reported it).
	Source                     bool
	SourceEmitted, SourceTotal int64
}

// Result is how a job ended.
type Result struct {
	JobID    string
	Status   scheduler.JobStatus
	Err      error
	Duration time.Duration
	Vertices []VertexMetrics
	// Restarts is the number of times the job restarted after a failure.
	Restarts    int
	Checkpoints checkpoint.Stats
}

// Options configure a JobMaster.
type Options struct {
	// Restart decides about restarts after failures (nil: none).
	Restart scheduler.RestartStrategy
	// Checkpoints configures checkpointing (nil or not Enabled: none).
	Checkpoints *CheckpointOptions
	// RestoreFrom is a savepoint or checkpoint location to start from.
	RestoreFrom string
	// AllowNonRestored drops state of the savepoint that no operator
	// claims.
	AllowNonRestored bool
	// Channels is the sizing the job's channels get when the network
	// memory allows (zero: network.DefaultSizing); see sizeChannels.
	Channels network.Sizing
	// SlotWait is how long a generation waits for enough slots, at the
	// start and at every restart, before the job fails (zero: it fails at
	// once when the slots it has are too few). A session cluster sets it:
	// TaskManagers may register later.
	SlotWait time.Duration
	Logger   *slog.Logger
	// Clock gives the JobMaster its time and timers (nil: clock.Real).
	Clock clock.Clock
	// RPC carries the JobMaster's calls to its TaskManagers and theirs to
	// it; required.
	RPC Transport
	// Functions holds the job's graph while it runs, for the TaskManagers
	// to resolve the function spec of their deployments; required.
	Functions *funcspec.Table
	// Registered names the registered job builder, with its arguments and
	// options, that built the job's graph (nil: the graph is embedded).
	// The deployments then carry a registered spec, and each TaskManager
	// builds the graph again and checks its fingerprint.
	Registered *rpcpb.RegisteredJob
	// StateBackend is the job's state backend, which its deployments
	// carry (nil: each TaskManager's own). Its LocalDir is not the job's:
	// a TaskManager keeps Pebble's directories in its own.
	StateBackend *op.StateBackend
	// Scheduler is the scheduler of the job (jobmanager.scheduler):
	// SchedulerDefault ("" too) or SchedulerAdaptive (FLIP-160, see
	// adaptive.go), configured by Adaptive.
	Scheduler string
	Adaptive  adaptive.Options
	// JobName is the job's name, which its deployments carry (Flink's
	// JobInformation) for the labels of the TaskManagers' metrics.
	JobName string
	// Address is where the JobMaster's gateway is served and reached by
	// its TaskManagers (default "jobmaster/<job id>", an rpc.Local
	// address); a JobManager process gives the address of its RPC port.
	Address string
	// Executor runs the JobMaster's work off its loop (storage calls, a
	// generation's restore), which reports back through the loop's queue
	// (nil: each in a goroutine of its own). Run, or Loop.Close, waits for
	// all of it. A simulation runs it as events of its world.
	Executor func(f func())
}

// JobMaster runs one job.
type JobMaster struct {
	jobID string
	graph *graph.JobGraph
	opts  Options
	sched jobScheduler
	// ada is the adaptive scheduler (nil: the default one runs). base is
	// the job's graph as submitted; graph is that of the generation
	// deployed last, at its parallelism (see adaptive.go).
	ada    *adaptiveScheduler
	base   *graph.JobGraph
	gens   generations
	cp     *checkpointing
	tms    map[string]TaskManager
	placed map[graph.SubtaskID]string
	// channels is the sizing of every channel of the generation deployed
	// last (see sizeChannels). tms are the TaskManagers that offered the
	// job slots (see membership.go).
	channels network.Sizing
	net      *network.Registry
	events   *queue.Queue[any]
	log      *slog.Logger
	clock    clock.Clock
	// wg tracks the goroutines the JobMaster starts (storage calls,
	// enumerators), so that Run returns only once all of them ended.
	wg       sync.WaitGroup
	restarts int
	metrics  map[graph.SubtaskID]taskmanager.Report
	// obs is what the JobMaster observes for Status (observe.go).
	obs observed
	// status is the snapshot other goroutines read (see status.go);
	// lastFailure the cause of the latest restart.
	status atomic.Pointer[Status]
	// changed is closed when the next status is published (nil: no one
	// waits); see StatusChanged.
	changedMu   sync.Mutex
	changed     chan struct{}
	lastFailure error
	// fromLatest is the generation restored from the latest completed
	// checkpoint (see restoreFailure).
	fromLatest fromLatest
	// enumerators are the split enumerators of the current generation.
	enumerators map[string]op.Enumerator
	// alignment coordinates the watermarks of the current generation's
	// sources with an alignment group (nil: none).
	alignment *alignment.Coordinator
	// restoring is the generation whose restore runs off the loop (nil:
	// none); held are the events the loop keeps back meanwhile (see
	// deploy.go).
	restoring *restoring
	held      []any
	// tickHeld: a tick of the checkpoint schedule waits for every subtask
	// to run (see tick).
	tickHeld bool
	// function names the job's graph in deployments; address is where the
	// JobMaster's gateway is served.
	function *rpcpb.FunctionSpec
	// baseFunction names the job's own graph (function may name a
	// rescaled one).
	baseFunction *rpcpb.FunctionSpec
	address      string
	// unserve stops serving the gateway (nil: not served yet).
	unserve func()
}

// restartTimer is the event that ends the delay before a restart.
type restartTimer struct{}

// New returns the JobMaster of a job over the given TaskManagers, which
// offer it all their slots; more can register later (see
// RegisterTaskManager).
func New(jobID string, jg *graph.JobGraph, tms []TaskManager, net *network.Registry, opts Options) (*JobMaster, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var reqs []slots.Request
	for _, v := range jg.Vertices {
		reqs = append(reqs, slots.Request{Vertex: v.ID, Parallelism: v.Parallelism})
	}
	if opts.RPC == nil || opts.Functions == nil {
		return nil, errors.New("jobmaster: Options.RPC and Options.Functions are required")
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	jm := &JobMaster{
		jobID: jobID, graph: jg, base: jg, opts: opts, clock: clk, tms: make(map[string]TaskManager),
		placed: make(map[graph.SubtaskID]string),
		net:    net, events: queue.New[any](), log: log.With("job", jobID),
		metrics: make(map[graph.SubtaskID]taskmanager.Report),
	}
	switch opts.Scheduler {
	case "", SchedulerDefault:
		s := scheduler.New(reqs, opts.Restart)
		if up := blockingUpstream(jg); up != nil {
			s.SetStages(up)
		}
		jm.sched = s
	case SchedulerAdaptive:
		ao := opts.Adaptive
		if c := opts.Checkpoints; c != nil && c.Enabled {
			ao.Rescale.OnCheckpoint = true
		}
		a, err := newAdaptiveScheduler(jg, opts.Restart, ao, clk.Now)
		if err != nil {
			return nil, err
		}
		jm.sched, jm.ada = a, a
	default:
		return nil, fmt.Errorf("jobmaster: unknown scheduler %q: want %q or %q", opts.Scheduler, SchedulerAdaptive, SchedulerDefault)
	}
	if c := opts.Checkpoints; c != nil && c.Enabled {
		if c.Storage == nil {
			return nil, errors.New("jobmaster: checkpointing needs a storage")
		}
		coord, err := checkpoint.New(topology(jg), c.Options)
		if err != nil {
			return nil, fmt.Errorf("jobmaster: %w", err)
		}
		jm.cp = &checkpointing{opts: *c, coord: coord, locations: map[int64]string{}}
		jm.cp.dirs = map[int64]*storage.CheckpointDir{}
		jm.cp.persist = map[int64]checkpoint.Persist{}
		jm.cp.again = map[int64][]checkpoint.Trigger{}
		jm.cp.savepoints.byID = map[int64]SavepointRequest{}
		jm.cp.coordinators = map[int64]map[string][]byte{}
		jm.cp.registry = storage.NewSharedStateRegistry()
		jm.cp.pendingShared = map[int64][]storage.SharedFile{}
		jm.cp.started = map[int64]time.Time{}
		jm.cp.sizes = map[int64][2]int64{}
	}
	for _, tm := range tms {
		jm.tms[tm.ID] = tm
		jm.sched.Step(scheduler.SlotsOffered{Slots: tm.Slots})
	}
	return jm, nil
}

// Run runs the job to a terminal state. Cancelling ctx cancels the job.
func (jm *JobMaster) Run(ctx context.Context) Result {
	l, err := jm.Start(ctx)
	if err != nil {
		return Result{JobID: jm.jobID, Status: scheduler.Failed, Err: err}
	}
	defer l.Close()
	done := ctx.Done()
	for {
		if res, ended := l.act(); ended {
			return res
		}
		select {
		case <-jm.events.Signal():
			l.handleQueued()
		case <-done:
			done = nil
			l.Cancel()
		}
	}
}

func (jm *JobMaster) handle(ctx context.Context, ev any) {
	if jm.hold(ev) {
		return
	}
	gen := jm.sched.Generation()
	now := jm.clock.Now()
	switch e := ev.(type) {
	case restoredEvent:
		jm.restoreDone(ctx, e)
	case taskmanager.Report:
		// The JobMaster's clock, not the TaskManager's, times the job.
		e.Now = now
		e = jm.restoreFailure(e)
		if jm.observeReport(e, gen) {
			return
		}
		if e.Generation == gen {
			jm.metrics[e.ID] = e
			if e.State == scheduler.ExecFinished {
				jm.stepCheckpoint(ctx, checkpoint.TaskFinished{Task: e.ID, Now: now, LastSnapshot: e.LastSnapshot})
			}
		}
		jm.sched.Step(e.TaskState)
		if jm.tickHeld && jm.allRunning() {
			jm.tick(ctx)
		}
	case taskManagerRegistered, taskManagerLost:
		jm.handleMembership(ev)
	case adaptiveTimeout:
		jm.sched.Step(adaptive.Timeout{Kind: e.t.Kind, Seq: e.t.Seq, Now: now})
	case slotWaitTimer:
		jm.sched.Step(scheduler.ResourceTimeout{Generation: e.generation})
	case restartTimer:
		jm.restarts++
		jm.metrics = make(map[graph.SubtaskID]taskmanager.Report)
		jm.sched.Step(scheduler.Restart{})
	case ackEvent:
		if jm.cp != nil {
			jm.acknowledged(e.id, e.state)
		}
		if e.attempt == gen {
			if jm.cp != nil {
				jm.cp.history.acked(e.id, now)
			}
			jm.stepCheckpoint(ctx, checkpoint.Ack{ID: e.id, Task: e.task, State: e.state.Operators, Now: now})
		}
	case declineEvent:
		if jm.cp != nil {
			jm.acknowledged(e.id, e.partial)
		}
		if e.attempt == gen {
			jm.stepCheckpoint(ctx, checkpoint.Decline{ID: e.id, Task: e.task, Reason: e.err, Now: now})
		}
	case endOfDataEvent:
		if e.attempt == gen {
			jm.stepCheckpoint(ctx, checkpoint.TaskEndOfData{Task: e.task, Now: now})
		}
	case writerEvent:
		jm.savepointWriter(ctx, e)
	case persistedEvent:
		jm.stepCheckpoint(ctx, checkpoint.Persisted{ID: e.id, Location: e.location, Err: e.err, Now: now})
	case tickEvent:
		jm.tick(ctx)
	case SavepointRequest:
		jm.requestSavepoint(ctx, e)
	case RequirementsRequest:
		jm.updateRequirements(e)
	case splitRequest:
		jm.handleSplitRequest(e)
	case watermarkReport:
		jm.handleWatermarkReport(e)
	}
}

func (jm *JobMaster) now() time.Time { return jm.clock.Now() }

// taskExecutorOf returns the gateway of the TaskManager that runs id, or
// nil when none does.
func (jm *JobMaster) taskExecutorOf(id graph.SubtaskID) rpc.TaskExecutorGateway {
	tm, ok := jm.placed[id]
	if !ok {
		return nil
	}
	return jm.taskExecutor(tm)
}

// taskExecutor returns the gateway of TaskManager id: at the address it
// offered its slots from, or at its id once it is lost.
func (jm *JobMaster) taskExecutor(id string) rpc.TaskExecutorGateway {
	if tm, ok := jm.tms[id]; ok {
		return jm.opts.RPC.TaskExecutor(tm.address())
	}
	return jm.opts.RPC.TaskExecutor(id)
}

// taskKey names the current attempt of id in messages.
func (jm *JobMaster) taskKey(id graph.SubtaskID) *rpcpb.TaskKey {
	return rpc.TaskKey(jm.jobID, jm.sched.Generation(), id)
}

func (jm *JobMaster) vertexMetrics() []VertexMetrics {
	out := make([]VertexMetrics, len(jm.graph.Vertices))
	reported := make([]int, len(out))
	for i, v := range jm.graph.Vertices {
		out[i] = VertexMetrics{ID: v.ID, Name: v.Name, Parallelism: v.Parallelism, MaxParallelism: v.MaxParallelism, Source: v.IsSource()}
	}
	for id, r := range jm.metrics {
		m := &out[id.Vertex]
		m.RecordsIn += r.RecordsIn
		m.RecordsOut += r.RecordsOut
		if m.Source {
			reported[id.Vertex]++
			m.SourceEmitted += r.SourceEmitted
			if r.SourceTotal < 0 || m.SourceTotal < 0 {
				m.SourceTotal = -1
			} else {
				m.SourceTotal += r.SourceTotal
			}
		}
	}
	for i := range out {
		if out[i].Source && reported[i] < out[i].Parallelism {
			out[i].SourceTotal = -1
		}
	}
	return out
}

// tick steps a Tick of the checkpoint schedule, once every subtask of the
// generation runs (or finished): before, a checkpoint would be triggered
// on subtasks that cannot take it (not deployed yet, waiting for slots,
// restoring) and expire, counted as a failure, which with no failure
// tolerated fails the job. Flink refuses such a trigger without counting
// it. A tick that comes earlier is held until then; the coordinator then
// triggers what is overdue.
func (jm *JobMaster) tick(ctx context.Context) {
	if !jm.allRunning() {
		jm.tickHeld = true
		return
	}
	jm.tickHeld = false
	jm.stepCheckpoint(ctx, checkpoint.Tick{Now: jm.clock.Now()})
}

// allRunning reports whether every subtask of the generation is RUNNING
// or FINISHED.
func (jm *JobMaster) allRunning() bool {
	for _, v := range jm.graph.Vertices {
		for i := range v.Parallelism {
			switch jm.sched.ExecutionState(graph.SubtaskID{Vertex: v.ID, Subtask: i}) {
			case scheduler.ExecRunning, scheduler.ExecFinished:
			default:
				return false
			}
		}
	}
	return true
}
