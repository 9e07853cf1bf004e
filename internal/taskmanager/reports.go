package taskmanager

import (
	"context"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/task"
)

// DefaultMetricsInterval is how often a running subtask's counters reach
// its JobMaster when nothing else is reported (SetMetricsInterval).
const DefaultMetricsInterval = time.Second

// reporter sends one subtask's reports: its state changes, and while it
// runs a periodic report of its counters, which repeats the state RUNNING
// (the JobMaster takes a report of the state a subtask already has as an
// update of its counters). Reports go out one at a time, in order, so a
// periodic report never follows the report of the subtask's end.
type reporter struct {
	send       func(Report)
	metrics    *task.Metrics
	id         graph.SubtaskID
	generation int

	mu      sync.Mutex
	running bool // RUNNING was reported and the end was not
	// prev is the sample of the previous report (zero: none), which the
	// next report's load is computed from; last is the last report.
	prev task.MetricsSample
	last Report
}

// stateChange reports the subtask's new state with its counters.
func (r *reporter) stateChange(st scheduler.ExecutionState, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = st == scheduler.ExecRunning
	r.sendLocked(st, err)
}

// counters reports the counters of a running subtask; after its end it
// does nothing.
func (r *reporter) counters() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running {
		r.sendLocked(scheduler.ExecRunning, nil)
	}
}

func (r *reporter) sendLocked(st scheduler.ExecutionState, err error) {
	s := r.metrics.Sample()
	var load task.Load
	if !r.prev.At.IsZero() && st == scheduler.ExecRunning {
		load = task.LoadBetween(r.prev, s)
	}
	r.prev = s
	r.last = Report{
		TaskState: scheduler.TaskState{ID: r.id, Generation: r.generation, State: st, Err: err, Now: s.At},
		RecordsIn: s.RecordsIn, RecordsOut: s.RecordsOut,
		LastSnapshot: r.metrics.LastSnapshot.Load(),
		Load:         load, InputWatermark: s.InputWatermark,
		SourceEmitted: s.SourceEmitted, SourceTotal: s.SourceTotal,
	}
	r.send(r.last)
}

// lastReport is the subtask's last report (zero before the first).
func (r *reporter) lastReport() Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// periodically reports the counters every interval until ctx ends (the
// subtask's context, cancelled when it ends); interval <= 0 turns the
// periodic reports off.
func (r *reporter) periodically(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.counters()
		}
	}
}

// SetMetricsInterval sets how often the counters of the running subtasks
// reach their JobMasters (DefaultMetricsInterval unless set; <= 0: only
// with their state changes). It applies to subtasks submitted after it.
func (tm *TaskManager) SetMetricsInterval(d time.Duration) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.mu.metricsInterval = d
	tm.mu.metricsIntervalSet = true
}

// MetricsInterval is the interval of the periodic counter reports.
func (tm *TaskManager) MetricsInterval() time.Duration {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if !tm.mu.metricsIntervalSet {
		return DefaultMetricsInterval
	}
	return tm.mu.metricsInterval
}
