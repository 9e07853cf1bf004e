// Package taskmanager owns a TaskManager's slots, its network memory and the
// subtasks running in them: it starts a goroutine per deployed subtask,
// cancels subtasks on request, and reports every state change to the
// JobMaster that deployed it. A subtask takes its channels' buffers from the
// TaskManager's network.BufferPool when it is deployed and gives them back
// when it ends (see the network package for how many it takes).
//
// State I/O is the TaskManager's too: a subtask's snapshots are written
// through checkpoint storage by a state writer of its own (statewriter.go),
// which acknowledges with handles, and a deployment's restore handles are
// read on the subtask's goroutine before its operators open
// (staterestore.go).
package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
	"github.com/weir-engine/weir/internal/task"
)

// Deployment is a subtask to run in one of this TaskManager's slots.
type Deployment struct {
	JobID string
	// JobName is the job's name, for the labels of the metrics.
	JobName    string
	Generation int
	Graph      *graph.JobGraph
	ID         graph.SubtaskID
	Slot       slots.ID
	// Channels is the sizing of the job's channels, which the JobMaster
	// chose to fit every TaskManager's network memory.
	Channels network.Sizing
	// Report receives every state change of the subtask; it must not
	// block.
	Report func(Report)
	// Init is what the subtask starts from and how it checkpoints.
	Init Init
	// StateBackend is the job's state backend (nil: the TaskManager's);
	// its LocalDir is ignored, the TaskManager's stays.
	StateBackend *op.StateBackend
}

// Init carries the checkpoint side of a deployment: handles, never state.
type Init struct {
	Checkpointing bool
	// NoFinalCheckpoint: FLIP-147 is off, tasks do not wait for a final
	// checkpoint.
	NoFinalCheckpoint bool
	// Checkpoints receives the subtask's acknowledgements (with the
	// handles of what it wrote), declines and end of data.
	Checkpoints CheckpointResponder
	// CheckpointStorage is the root of the job's checkpoint storage, which
	// the subtask writes its snapshots to and restores through (empty
	// without checkpoints).
	CheckpointStorage string
	// Restore holds the handles of the state the subtask starts from (nil:
	// it starts empty); the subtask reads them itself.
	Restore           *storage.TaskRestore
	LastCheckpointID  int64
	FinishedOnRestore bool
	// RequestSplit reaches the JobMaster's split enumerators.
	RequestSplit func(uid string, subtask int, reply func(split []byte, ok bool))
	// ReportWatermark reaches the JobMaster's watermark alignment.
	ReportWatermark func(uid string, subtask int, r op.AlignmentReport, reply func(maxAllowed int64))
}

// Report is a subtask's state change with its counters and the last
// checkpoint it took its snapshot for.
type Report struct {
	scheduler.TaskState
	RecordsIn, RecordsOut int64
	LastSnapshot          int64
	// Load is the subtask's load since its previous report (zero in the
	// first); InputWatermark its combined input watermark.
	Load           task.Load
	InputWatermark int64
	// SourceEmitted and SourceTotal are a source's progress through its
	// input (see task.Metrics).
	SourceEmitted, SourceTotal int64
}

type runningTask struct {
	cancel     context.CancelFunc
	task       *task.Task
	reports    *reporter
	vertexName string
	jobName    string
}

type taskKey struct {
	job        string
	generation int
	id         graph.SubtaskID
}

// TaskManager runs subtasks.
type TaskManager struct {
	id      string
	slots   int
	net     network.ConnectionManager
	buffers *network.BufferPool
	taskCfg task.Config
	log     *slog.Logger
	// storages are the checkpoint storages of the jobs' subtasks, closed
	// with the TaskManager unless shared (ShareStorages).
	storages    *Storages
	ownStorages bool

	// mu guards the running subtasks and closed; a subtask's goroutine is
	// added to wg under it, so that Close's Wait never races an Add.
	mu struct {
		sync.Mutex
		running map[taskKey]*runningTask
		closed  bool
		// metricsInterval paces the periodic counter reports (reports.go).
		metricsInterval    time.Duration
		metricsIntervalSet bool
	}
	wg sync.WaitGroup
}

// New returns a TaskManager with n slots on the given network, whose
// subtasks draw their channels' buffers from buffers.
func New(id string, n int, net network.ConnectionManager, buffers *network.BufferPool, cfg task.Config, log *slog.Logger) *TaskManager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if sb := &cfg.StateBackend; sb.Pebble && sb.LocalRecovery && sb.LocalRecoveryDir == "" {
		sb.LocalRecoveryDir = localRecoveryDir(sb.LocalDir, id)
	}
	tm := &TaskManager{id: id, slots: n, net: net, buffers: buffers, taskCfg: cfg, log: log.With("taskmanager", id)}
	tm.storages, tm.ownStorages = NewStorages(tm.log), true
	tm.mu.running = make(map[taskKey]*runningTask)
	return tm
}

// UseStorage makes the subtasks write and read the checkpoints under
// st.Root() through st, which stays its owner's to close (the embedded
// cluster shares the JobMaster's storage). Any other root a deployment
// names is opened on first use.
func (tm *TaskManager) UseStorage(st *storage.Storage) { tm.storages.Use(st) }

// ShareStorages makes the TaskManager's subtasks find their checkpoint
// storages in s, which the TaskManagers of a cluster share and its owner
// closes. Call it before the first Submit.
func (tm *TaskManager) ShareStorages(s *Storages) { tm.storages, tm.ownStorages = s, false }

// ID names the TaskManager.
func (tm *TaskManager) ID() string { return tm.id }

// Slots lists the TaskManager's slots.
func (tm *TaskManager) Slots() []slots.ID {
	ids := make([]slots.ID, tm.slots)
	for i := range ids {
		ids[i] = slots.ID{TaskManager: tm.id, Index: i}
	}
	return ids
}

// NetworkCapacity is the size of the TaskManager's network memory.
func (tm *TaskManager) NetworkCapacity() network.Capacity { return tm.buffers.Capacity() }

// NetworkBuffersInUse is the number of buffers its running subtasks hold.
func (tm *TaskManager) NetworkBuffersInUse() int { return tm.buffers.InUse() }

// Submit starts a subtask once it has its buffers.
func (tm *TaskManager) Submit(d Deployment) error {
	if d.ID.Vertex < 0 || d.ID.Vertex >= len(d.Graph.Vertices) {
		return fmt.Errorf("taskmanager %s: unknown vertex %d", tm.id, d.ID.Vertex)
	}
	if d.Channels == (network.Sizing{}) {
		d.Channels = network.DefaultSizing
	}
	buffers := network.SubtaskUsage(d.Graph.Vertices[d.ID.Vertex], d.ID.Subtask).Buffers(d.Channels)
	if err := tm.buffers.Request(buffers); err != nil {
		return fmt.Errorf("taskmanager %s: subtask %v: %w", tm.id, d.ID, err)
	}
	key := taskKey{d.JobID, d.Generation, d.ID}
	ctx, cancel := context.WithCancel(context.Background())
	desc := task.Descriptor{
		JobID: d.JobID, Generation: d.Generation, Graph: d.Graph,
		Vertex: d.Graph.Vertices[d.ID.Vertex], Subtask: d.ID.Subtask, Network: tm.net, Channels: d.Channels,
		Checkpointing: d.Init.Checkpointing, NoFinalCheckpoint: d.Init.NoFinalCheckpoint,
		LastCheckpointID: d.Init.LastCheckpointID, FinishedOnRestore: d.Init.FinishedOnRestore, RequestSplit: d.Init.RequestSplit,
		ReportWatermark: d.Init.ReportWatermark,
	}
	var writer *stateWriter
	if d.Init.Checkpoints != nil {
		root := d.Init.CheckpointStorage
		writer = &stateWriter{ctx: ctx, jobID: d.JobID, vertex: desc.Vertex, subtask: d.ID.Subtask, to: d.Init.Checkpoints,
			storage: func(ctx context.Context) (*storage.Storage, error) {
				if root == "" {
					return nil, errors.New("the job has no checkpoint storage")
				}
				return tm.storages.get(ctx, root)
			}}
		desc.Checkpoints = writer
	}
	if d.Init.Restore != nil {
		desc.Restore = tm.restorer(d.Init.Restore, d.Init.CheckpointStorage)
	}
	t := task.New(desc, tm.taskConfig(d))
	tm.mu.Lock()
	var refused error
	if _, dup := tm.mu.running[key]; dup {
		refused = fmt.Errorf("taskmanager %s: subtask %v already runs", tm.id, d.ID)
	} else if tm.mu.closed {
		refused = fmt.Errorf("taskmanager %s: subtask %v: the TaskManager is closed", tm.id, d.ID)
	}
	if refused != nil {
		tm.mu.Unlock()
		cancel()
		tm.buffers.Recycle(buffers)
		return refused
	}
	reports := &reporter{send: d.Report, metrics: &t.Metrics, id: d.ID, generation: d.Generation}
	tm.mu.running[key] = &runningTask{cancel: cancel, task: t, reports: reports, vertexName: desc.Vertex.Name, jobName: d.JobName}
	tm.wg.Add(1)
	tm.mu.Unlock()

	go func() {
		defer tm.wg.Done()
		defer cancel()
		report := reports.stateChange
		err := t.Run(ctx, func() {
			report(scheduler.ExecRunning, nil)
			tm.wg.Add(1)
			go func() {
				defer tm.wg.Done()
				reports.periodically(ctx, tm.MetricsInterval())
			}()
		})
		state := scheduler.ExecFailed
		switch {
		case err == nil:
			state = scheduler.ExecFinished
		case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, network.ErrReleased)):
			state, err = scheduler.ExecCanceled, nil
		default:
			if errors.Is(err, network.ErrReleased) {
				// Its consumer released the channel (it failed, or was
				// cancelled): the consumer's failure is the cause.
				err = scheduler.Consequence(err)
			}
			tm.log.Debug("subtask failed", "task", t.Name(), "err", err)
		}
		if writer != nil {
			if state == scheduler.ExecFailed {
				// A failed subtask's writes are of no use, and its
				// failure is news the JobMaster must not wait for: the
				// writes end after the report (Close waits for them).
				cancel()
				defer writer.wait()
			} else {
				// Every acknowledgement or decline of a subtask that
				// finished or was cancelled goes out before its end, so
				// the JobMaster has them all when the job ends.
				writer.wait()
			}
		}
		tm.mu.Lock()
		delete(tm.mu.running, key)
		tm.mu.Unlock()
		// Before the report: a restart deploys the next generation only
		// once every subtask reported its end, and it needs the buffers.
		// Data a finished producer left queued in its subpartitions stays
		// there until its consumer reads it or the job's partitions are
		// released (network.Registry.ReleaseJob).
		tm.buffers.Recycle(buffers)
		report(state, err)
	}()
	return nil
}

func (tm *TaskManager) lookup(job string, generation int, id graph.SubtaskID) *runningTask {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.mu.running[taskKey{job, generation, id}]
}

// Cancel cancels a running subtask; it is a no-op when it already ended.
func (tm *TaskManager) Cancel(job string, generation int, id graph.SubtaskID) {
	if r := tm.lookup(job, generation, id); r != nil {
		r.cancel()
	}
}

// TriggerCheckpoint starts a checkpoint on a subtask; it reports false when
// the subtask is not running.
func (tm *TaskManager) TriggerCheckpoint(job string, generation int, id graph.SubtaskID, b network.CheckpointBarrier) bool {
	r := tm.lookup(job, generation, id)
	return r != nil && r.task.TriggerCheckpoint(b)
}

// NotifyCheckpoint tells a subtask that a checkpoint completed or was
// aborted.
func (tm *TaskManager) NotifyCheckpoint(job string, generation int, id graph.SubtaskID, checkpointID int64, complete bool) {
	r := tm.lookup(job, generation, id)
	if r == nil {
		return
	}
	if complete {
		r.task.NotifyCheckpointComplete(checkpointID)
	} else {
		r.task.NotifyCheckpointAborted(checkpointID)
	}
}

// CancelAll cancels every running subtask, as when the TaskManager lost
// its JobManager, and returns how many it cancelled; it does not wait for
// them to end, and new subtasks may be submitted after it.
func (tm *TaskManager) CancelAll() int {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	for _, r := range tm.mu.running {
		r.cancel()
	}
	return len(tm.mu.running)
}

// Close cancels every subtask and waits for their goroutines; a Submit
// after it (or racing it: a TaskManager lost while a JobMaster deploys)
// is refused.
func (tm *TaskManager) Close() {
	tm.mu.Lock()
	tm.mu.closed = true
	for _, r := range tm.mu.running {
		r.cancel()
	}
	tm.mu.Unlock()
	tm.wg.Wait()
	if dir := tm.taskCfg.StateBackend.LocalRecoveryDir; dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			tm.log.Warn("remove local recovery state", "dir", dir, "err", err)
		}
	}
	if tm.ownStorages {
		if err := tm.storages.Close(); err != nil {
			tm.log.Warn("close checkpoint storage", "err", err)
		}
	}
}
