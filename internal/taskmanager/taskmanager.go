// Package taskmanager owns a TaskManager's slots, its network memory and the
// subtasks running in them: it starts a goroutine per deployed subtask,
// cancels subtasks on request, and reports every state change to the
// JobMaster that deployed it. A subtask takes its channels' buffers from the
// TaskManager's network.BufferPool when it is deployed and gives them back
// when it ends (see the network package for how many it takes).
package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
	"github.com/weir-engine/weir/internal/task"
)

// Deployment is a subtask to run in one of this TaskManager's slots.
type Deployment struct {
	JobID      string
	Generation int
	Graph      *graph.JobGraph
	ID         scheduler.ExecutionID
	Slot       slots.ID
	// Channels is the sizing of the job's channels, which the JobMaster
	// chose to fit every TaskManager's network memory.
	Channels network.Sizing
	// Report receives every state change of the subtask; it must not
	// block.
	Report func(Report)
	// Init is what the subtask starts from and how it checkpoints.
	Init Init
}

// Init carries the checkpoint side of a deployment.
type Init struct {
	Checkpointing bool
	// NoFinalCheckpoint: FLIP-147 is off, tasks do not wait for a final
	// checkpoint.
	NoFinalCheckpoint bool
	Responder         task.Responder
	Restored          map[string]*op.Restored
	LastCheckpointID  int64
	ChannelState      map[int][][]byte
	FinishedOnRestore bool
	// RequestSplit reaches the JobMaster's split enumerators.
	RequestSplit func(uid string, subtask int, reply func(split []byte, ok bool))
}

// Report is a subtask's state change with its counters and the last
// checkpoint it took its snapshot for.
type Report struct {
	scheduler.TaskState
	RecordsIn, RecordsOut int64
	LastSnapshot          int64
}

type runningTask struct {
	cancel context.CancelFunc
	task   *task.Task
}

type taskKey struct {
	job        string
	generation int
	id         scheduler.ExecutionID
}

// TaskManager runs subtasks.
type TaskManager struct {
	id      string
	slots   int
	net     *network.Registry
	buffers *network.BufferPool
	taskCfg task.Config
	log     *slog.Logger

	mu struct {
		sync.Mutex
		running map[taskKey]*runningTask
	}
	wg sync.WaitGroup
}

// New returns a TaskManager with n slots on the given network, whose
// subtasks draw their channels' buffers from buffers.
func New(id string, n int, net *network.Registry, buffers *network.BufferPool, cfg task.Config, log *slog.Logger) *TaskManager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tm := &TaskManager{id: id, slots: n, net: net, buffers: buffers, taskCfg: cfg, log: log.With("taskmanager", id)}
	tm.mu.running = make(map[taskKey]*runningTask)
	return tm
}

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
	t := task.New(task.Descriptor{
		JobID: d.JobID, Generation: d.Generation, Graph: d.Graph,
		Vertex: d.Graph.Vertices[d.ID.Vertex], Subtask: d.ID.Subtask, Network: tm.net, Channels: d.Channels,
		Checkpointing: d.Init.Checkpointing, NoFinalCheckpoint: d.Init.NoFinalCheckpoint, Checkpoints: d.Init.Responder, Restored: d.Init.Restored,
		LastCheckpointID: d.Init.LastCheckpointID, ChannelState: d.Init.ChannelState,
		FinishedOnRestore: d.Init.FinishedOnRestore, RequestSplit: d.Init.RequestSplit,
	}, tm.taskCfg)
	tm.mu.Lock()
	if _, dup := tm.mu.running[key]; dup {
		tm.mu.Unlock()
		cancel()
		tm.buffers.Recycle(buffers)
		return fmt.Errorf("taskmanager %s: subtask %v already runs", tm.id, d.ID)
	}
	tm.mu.running[key] = &runningTask{cancel: cancel, task: t}
	tm.mu.Unlock()

	tm.wg.Add(1)
	go func() {
		defer tm.wg.Done()
		defer cancel()
		report := func(st scheduler.ExecutionState, err error) {
			d.Report(Report{
				TaskState: scheduler.TaskState{ID: d.ID, Generation: d.Generation, State: st, Err: err, Now: time.Now()},
				RecordsIn: t.Metrics.RecordsIn.Load(), RecordsOut: t.Metrics.RecordsOut.Load(),
				LastSnapshot: t.Metrics.LastSnapshot.Load(),
			})
		}
		err := t.Run(ctx, func() { report(scheduler.ExecRunning, nil) })
		tm.mu.Lock()
		delete(tm.mu.running, key)
		tm.mu.Unlock()
		// Before the report: a restart deploys the next generation only
		// once every subtask reported its end, and it needs the buffers.
		// Buffers a finished sender left queued for a slower receiver
		// stay with that channel, which goes with the receiver's gate.
		tm.buffers.Recycle(buffers)
		switch {
		case err == nil:
			report(scheduler.ExecFinished, nil)
		case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, network.ErrReleased)):
			report(scheduler.ExecCanceled, nil)
		default:
			if errors.Is(err, network.ErrReleased) {
				// Its consumer released the channel (it failed, or was
				// cancelled): the consumer's failure is the cause.
				err = scheduler.Consequence(err)
			}
			tm.log.Debug("subtask failed", "task", t.Name(), "err", err)
			report(scheduler.ExecFailed, err)
		}
	}()
	return nil
}

func (tm *TaskManager) lookup(job string, generation int, id scheduler.ExecutionID) *runningTask {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.mu.running[taskKey{job, generation, id}]
}

// Cancel cancels a running subtask; it is a no-op when it already ended.
func (tm *TaskManager) Cancel(job string, generation int, id scheduler.ExecutionID) {
	if r := tm.lookup(job, generation, id); r != nil {
		r.cancel()
	}
}

// TriggerCheckpoint starts a checkpoint on a subtask; it reports false when
// the subtask is not running.
func (tm *TaskManager) TriggerCheckpoint(job string, generation int, id scheduler.ExecutionID, b network.CheckpointBarrier) bool {
	r := tm.lookup(job, generation, id)
	return r != nil && r.task.TriggerCheckpoint(b)
}

// NotifyCheckpoint tells a subtask that a checkpoint completed or was
// aborted.
func (tm *TaskManager) NotifyCheckpoint(job string, generation int, id scheduler.ExecutionID, checkpointID int64, complete bool) {
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

// Close cancels every subtask and waits for their goroutines.
func (tm *TaskManager) Close() {
	tm.mu.Lock()
	for _, r := range tm.mu.running {
		r.cancel()
	}
	tm.mu.Unlock()
	tm.wg.Wait()
}
