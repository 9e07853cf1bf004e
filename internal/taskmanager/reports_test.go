package taskmanager

import (
	"context"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/task"
)

// A running subtask's counters are reported with the state RUNNING
// repeated; nothing is reported before it runs or after its end.
func TestReporterCounters(t *testing.T) {
	var m task.Metrics
	var got []Report
	r := &reporter{send: func(rep Report) { got = append(got, rep) }, metrics: &m, id: graph.SubtaskID{Vertex: 1, Subtask: 2}, generation: 3}
	r.counters() // not running yet
	r.stateChange(scheduler.ExecRunning, nil)
	m.RecordsIn.Store(10)
	m.RecordsOut.Store(4)
	r.counters()
	m.RecordsIn.Store(25)
	r.stateChange(scheduler.ExecFinished, nil)
	r.counters() // ended
	want := []struct {
		state   scheduler.ExecutionState
		in, out int64
	}{{scheduler.ExecRunning, 0, 0}, {scheduler.ExecRunning, 10, 4}, {scheduler.ExecFinished, 25, 4}}
	if len(got) != len(want) {
		t.Fatalf("%d reports %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.State != w.state || g.RecordsIn != w.in || g.RecordsOut != w.out || g.ID != r.id || g.Generation != 3 {
			t.Errorf("report %d: %+v, want %v in=%d out=%d", i, g, w.state, w.in, w.out)
		}
	}
}

// periodically returns when the subtask's context ends, and at once
// without an interval.
func TestReporterPeriodicallyEnds(t *testing.T) {
	r := &reporter{send: func(Report) {}, metrics: &task.Metrics{}}
	r.periodically(context.Background(), 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.periodically(ctx, 1)
}

// A report's counters, load and input watermark cross the wire unchanged;
// the first report of a subtask has no load yet.
func TestReportLoadOnTheWire(t *testing.T) {
	var m task.Metrics
	m.InputWatermark.Store(77)
	var got []Report
	r := &reporter{send: func(rep Report) { got = append(got, rep) }, metrics: &m}
	r.stateChange(scheduler.ExecRunning, nil)
	m.RecordsIn.Store(5)
	r.counters()
	if got[0].Load != (task.Load{}) {
		t.Fatalf("first report has load %+v, want none", got[0].Load)
	}
	rep := got[1]
	rep.Load = task.Load{BusyTimeMsPerSecond: 600, IdleTimeMsPerSecond: 300, BackPressuredTimeMsPerSecond: 100}
	back := ReportOf(rep.TaskState, rep.metricsMessage())
	if back.InputWatermark != 77 || back.RecordsIn != 5 || back.Load != rep.Load {
		t.Fatalf("report after the wire %+v, want watermark 77, 5 records in, load %+v", back, rep.Load)
	}
	if r.lastReport().RecordsIn != 5 {
		t.Fatalf("last report %+v, want the second", r.lastReport())
	}
}
