package jobmaster

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// What the JobMaster observes of its job for the REST API and the metrics
// beyond what it needs to run it: the subtasks' counters as they run,
// their rates, and when the job entered each state.

// SubtaskMetrics are one subtask's counters as last reported.
type SubtaskMetrics struct {
	ID    graph.SubtaskID
	State scheduler.ExecutionState
	// TaskManager is where it was deployed.
	TaskManager string
	// Since is when the subtask entered State (the JobMaster's clock).
	Since                 time.Time
	RecordsIn, RecordsOut int64
	// RecordsInPerSecond and RecordsOutPerSecond are the rates between
	// the last two reports of the running subtask (0 before two).
	RecordsInPerSecond, RecordsOutPerSecond float64
	// Load is the subtask's busy, idle and back-pressured time per second
	// as its TaskManager measured it for the last report (its records'
	// rates are the two above); InputWatermark is its combined input
	// watermark (math.MinInt64 before any).
	Load           task.Load
	InputWatermark int64
}

// observed is the JobMaster's record of its job for Status; the loop owns
// it. The zero value is ready.
type observed struct {
	samples map[graph.SubtaskID]sample
	// states holds when the job first entered each state; last is the
	// state seen last.
	states map[scheduler.JobStatus]time.Time
	last   scheduler.JobStatus
	// exceptions are the latest failures of subtasks, oldest first.
	exceptions []Exception
}

// Exception is a subtask's failure.
type Exception struct {
	Err error
	At  time.Time
	// Task names the subtask as Flink does: "name (i/n)", i from 1.
	Task string
}

// maxExceptions bounds the exceptions kept (Flink's
// web.exception-history-size default).
const maxExceptions = 16

// failed keeps the failure x.
func (o *observed) failed(x Exception) {
	o.exceptions = append(o.exceptions, x)
	if n := len(o.exceptions) - maxExceptions; n > 0 {
		o.exceptions = append(o.exceptions[:0], o.exceptions[n:]...)
	}
}

// subtaskName names subtask id as Flink's taskName does.
func (jm *JobMaster) subtaskName(id graph.SubtaskID) string {
	if id.Vertex < 0 || id.Vertex >= len(jm.graph.Vertices) {
		return fmt.Sprintf("vertex %d (%d)", id.Vertex, id.Subtask+1)
	}
	v := jm.graph.Vertices[id.Vertex]
	return fmt.Sprintf("%s (%d/%d)", v.Name, id.Subtask+1, v.Parallelism)
}

// sample is a subtask's counters at a time, and the rates up to it.
type sample struct {
	at                  time.Time
	in, out             int64
	inPerSec, outPerSec float64
	generation          int
}

// observeReport takes a subtask's report. The periodic report of a
// running subtask (the TaskManager repeats the state RUNNING with fresh
// counters, see taskmanager.reporter) updates the counters and rates, and
// observeReport reports true; any other report is a state change for the
// scheduler: false. A failure of the current generation that is not a
// consequence of another one is kept for the exception history.
func (jm *JobMaster) observeReport(e taskmanager.Report, gen int) bool {
	jm.obs.sample(e)
	if e.State == scheduler.ExecFailed && e.Err != nil && e.Generation == gen && !scheduler.IsConsequence(e.Err) {
		jm.obs.failed(Exception{Err: e.Err, At: e.Now, Task: jm.subtaskName(e.ID)})
		jm.log.Info("subtask failed", "vertex", e.ID.Vertex, "task", jm.subtaskName(e.ID), "subtask", e.ID.Subtask, "err", e.Err)
	}
	prev, ok := jm.metrics[e.ID]
	if !ok || e.Generation != gen || prev.Generation != gen || prev.State != scheduler.ExecRunning || e.State != scheduler.ExecRunning {
		return false
	}
	e.Now = prev.Now // the time it started running
	jm.metrics[e.ID] = e
	return true
}

// sample records the counters of report e and the rates since the
// previous report of the same attempt.
func (o *observed) sample(e taskmanager.Report) {
	if o.samples == nil {
		o.samples = make(map[graph.SubtaskID]sample)
	}
	s := sample{at: e.Now, in: e.RecordsIn, out: e.RecordsOut, generation: e.Generation}
	if p, ok := o.samples[e.ID]; ok && p.generation == e.Generation {
		if dt := e.Now.Sub(p.at).Seconds(); dt > 0 {
			s.inPerSec, s.outPerSec = float64(e.RecordsIn-p.in)/dt, float64(e.RecordsOut-p.out)/dt
		} else {
			s.inPerSec, s.outPerSec = p.inPerSec, p.outPerSec
		}
	}
	if e.State != scheduler.ExecRunning {
		s.inPerSec, s.outPerSec = 0, 0
	}
	o.samples[e.ID] = s
}

// noteState records when the job entered state.
func (o *observed) noteState(state scheduler.JobStatus, now time.Time) {
	if o.states == nil {
		o.states = make(map[scheduler.JobStatus]time.Time)
	}
	if state != o.last {
		o.last = state
		o.states[state] = now
	}
}

// subtaskMetrics lists the counters of the current generation's
// subtasks, by vertex and subtask.
func (jm *JobMaster) subtaskMetrics() []SubtaskMetrics {
	out := make([]SubtaskMetrics, 0, len(jm.metrics))
	for id, r := range jm.metrics {
		m := SubtaskMetrics{ID: id, State: r.State, TaskManager: jm.placed[id], Since: r.Now, RecordsIn: r.RecordsIn, RecordsOut: r.RecordsOut,
			Load: task.Load{BusyTimeMsPerSecond: r.Load.BusyTimeMsPerSecond, IdleTimeMsPerSecond: r.Load.IdleTimeMsPerSecond,
				BackPressuredTimeMsPerSecond: r.Load.BackPressuredTimeMsPerSecond},
			InputWatermark: r.InputWatermark}
		if s, ok := jm.obs.samples[id]; ok && s.generation == r.Generation {
			m.RecordsInPerSecond, m.RecordsOutPerSecond = s.inPerSec, s.outPerSec
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b SubtaskMetrics) int {
		if a.ID.Vertex != b.ID.Vertex {
			return a.ID.Vertex - b.ID.Vertex
		}
		return a.ID.Subtask - b.ID.Subtask
	})
	return out
}

// observe adds what the JobMaster observed to s.
func (jm *JobMaster) observe(s *Status) {
	jm.obs.noteState(s.State, jm.clock.Now())
	s.Timestamps = maps.Clone(jm.obs.states)
	s.Subtasks = jm.subtaskMetrics()
	s.Restarts = jm.restarts
	s.Exceptions = slices.Clone(jm.obs.exceptions)
	slices.Reverse(s.Exceptions)
	s.TaskManagers = jm.taskManagerUsage()
}

// TaskManagerUsage is a TaskManager that offered the job slots, and how
// many of them the job's subtasks occupy.
type TaskManagerUsage struct {
	ID           string
	Slots, Used  int
	NetworkBytes int64
}

// taskManagerUsage lists the job's TaskManagers by id. Subtasks of
// different vertices share a slot: a TaskManager's used slots are the
// most subtasks of one vertex placed on it.
func (jm *JobMaster) taskManagerUsage() []TaskManagerUsage {
	perVertex := make(map[string]map[int]int)
	for id, tm := range jm.placed {
		if perVertex[tm] == nil {
			perVertex[tm] = make(map[int]int)
		}
		perVertex[tm][id.Vertex]++
	}
	out := make([]TaskManagerUsage, 0, len(jm.tms))
	for _, tm := range jm.tms {
		u := TaskManagerUsage{ID: tm.ID, Slots: len(tm.Slots), NetworkBytes: tm.Network.Memory}
		for _, n := range perVertex[tm.ID] {
			u.Used = min(max(u.Used, n), u.Slots)
		}
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b TaskManagerUsage) int { return strings.Compare(a.ID, b.ID) })
	return out
}
