// Package taskmanager owns a TaskManager's slots and the subtasks running in
// them: it starts a goroutine per deployed subtask, cancels subtasks on
// request, and reports every state change to the JobMaster that deployed it.
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
	// Report receives every state change of the subtask; it must not
	// block.
	Report func(Report)
}

// Report is a subtask's state change with its counters.
type Report struct {
	scheduler.TaskState
	RecordsIn, RecordsOut int64
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
	taskCfg task.Config
	log     *slog.Logger

	mu struct {
		sync.Mutex
		running map[taskKey]context.CancelFunc
	}
	wg sync.WaitGroup
}

// New returns a TaskManager with n slots on the given network.
func New(id string, n int, net *network.Registry, cfg task.Config, log *slog.Logger) *TaskManager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tm := &TaskManager{id: id, slots: n, net: net, taskCfg: cfg, log: log.With("taskmanager", id)}
	tm.mu.running = make(map[taskKey]context.CancelFunc)
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

// Submit starts a subtask.
func (tm *TaskManager) Submit(d Deployment) error {
	if d.ID.Vertex < 0 || d.ID.Vertex >= len(d.Graph.Vertices) {
		return fmt.Errorf("taskmanager %s: unknown vertex %d", tm.id, d.ID.Vertex)
	}
	key := taskKey{d.JobID, d.Generation, d.ID}
	ctx, cancel := context.WithCancel(context.Background())
	tm.mu.Lock()
	if _, dup := tm.mu.running[key]; dup {
		tm.mu.Unlock()
		cancel()
		return fmt.Errorf("taskmanager %s: subtask %v already runs", tm.id, d.ID)
	}
	tm.mu.running[key] = cancel
	tm.mu.Unlock()

	t := task.New(task.Descriptor{
		JobID: d.JobID, Generation: d.Generation, Graph: d.Graph,
		Vertex: d.Graph.Vertices[d.ID.Vertex], Subtask: d.ID.Subtask, Network: tm.net,
	}, tm.taskCfg)
	tm.wg.Add(1)
	go func() {
		defer tm.wg.Done()
		defer cancel()
		report := func(st scheduler.ExecutionState, err error) {
			d.Report(Report{
				TaskState: scheduler.TaskState{ID: d.ID, Generation: d.Generation, State: st, Err: err, Now: time.Now()},
				RecordsIn: t.Metrics.RecordsIn.Load(), RecordsOut: t.Metrics.RecordsOut.Load(),
			})
		}
		err := t.Run(ctx, func() { report(scheduler.ExecRunning, nil) })
		tm.mu.Lock()
		delete(tm.mu.running, key)
		tm.mu.Unlock()
		switch {
		case err == nil:
			report(scheduler.ExecFinished, nil)
		case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, network.ErrReleased)):
			report(scheduler.ExecCanceled, nil)
		default:
			tm.log.Debug("subtask failed", "task", t.Name(), "err", err)
			report(scheduler.ExecFailed, err)
		}
	}()
	return nil
}

// Cancel cancels a running subtask; it is a no-op when it already ended.
func (tm *TaskManager) Cancel(job string, generation int, id scheduler.ExecutionID) {
	tm.mu.Lock()
	cancel := tm.mu.running[taskKey{job, generation, id}]
	tm.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Close cancels every subtask and waits for their goroutines.
func (tm *TaskManager) Close() {
	tm.mu.Lock()
	for _, cancel := range tm.mu.running {
		cancel()
	}
	tm.mu.Unlock()
	tm.wg.Wait()
}
