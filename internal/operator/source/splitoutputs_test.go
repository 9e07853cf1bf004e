package source

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/watermark"
)

// manualTimers is an op.TimerScheduler whose time moves only when the test
// says; the periodic check runs at tick.
type manualTimers struct {
	now  time.Time
	next func() error
}

func (m *manualTimers) Now() time.Time { return m.now }

func (m *manualTimers) Schedule(_ time.Time, fn func() error) op.TimerID {
	m.next = fn
	return 1
}

func (m *manualTimers) Cancel(op.TimerID) { m.next = nil }

// tick moves time to at (since the start) and runs the periodic check.
func (m *manualTimers) tick(t *testing.T, start time.Time, at time.Duration) {
	t.Helper()
	m.now = start.Add(at)
	if err := m.next(); err != nil {
		t.Fatal(err)
	}
}

// logOutput records what the source emits and announces, in order.
type logOutput struct{ log []string }

func (l *logOutput) Collect(ts int64, v string) error {
	l.log = append(l.log, fmt.Sprintf("%s@%d", v, ts))
	return nil
}

func (l *logOutput) EmitWatermark(wm int64) error {
	l.log = append(l.log, fmt.Sprintf("wm %d", wm))
	return nil
}

func (l *logOutput) status(idle bool) error {
	l.log = append(l.log, map[bool]string{true: "IDLE", false: "ACTIVE"}[idle])
	return nil
}

// The watermark status of a source subtask: IDLE once every split is idle
// (after the highest watermark its splits reached), or once it had no split
// for Idleness; ACTIVE before the next record or watermark; never with
// Idleness 0.
func TestSplitOutputsWatermarkStatus(t *testing.T) {
	type step struct {
		at      time.Duration // a tick at this time, when split is ""
		split   string        // a record of this split
		ts      int64
		wantLog []string // what the step emitted
	}
	tests := []struct {
		name     string
		idleness time.Duration
		splits   []string
		steps    []step
	}{
		{"all splits idle, then one wakes up", 50 * time.Millisecond, []string{"a", "b"}, []step{
			{split: "a", ts: 100, wantLog: []string{"a@100"}},
			{at: 10 * time.Millisecond},                                     // b is not idle yet
			{at: 60 * time.Millisecond, wantLog: []string{"wm 99", "IDLE"}}, // both idle: flush, then IDLE
			{at: 70 * time.Millisecond},                                     // announced once
			{split: "b", ts: 300, wantLog: []string{"ACTIVE", "b@300"}},     // ACTIVE first
			{at: 80 * time.Millisecond, wantLog: []string{"wm 299"}},        // a is idle, b counts
			{at: 140 * time.Millisecond, wantLog: []string{"IDLE"}},         // b idle again
			{split: "a", ts: 50, wantLog: []string{"ACTIVE", "a@50"}},       // late, still ACTIVE first
		}},
		{"one idle split, one live: active", 50 * time.Millisecond, []string{"a", "b"}, []step{
			{split: "a", ts: 100, wantLog: []string{"a@100"}},
			{at: 40 * time.Millisecond},
			{split: "a", ts: 200, wantLog: []string{"a@200"}},
			{at: 60 * time.Millisecond, wantLog: []string{"wm 199"}}, // b idle, a live
		}},
		{"no split for Idleness", 50 * time.Millisecond, nil, []step{
			{at: 40 * time.Millisecond},
			{at: 50 * time.Millisecond, wantLog: []string{"IDLE"}},
		}},
		{"Idleness 0: never idle", 0, []string{"a"}, []step{
			{at: 10 * time.Second},
			{split: "a", ts: 100, wantLog: []string{"a@100"}},
			{at: 20 * time.Second, wantLog: []string{"wm 99"}},
			{at: 30 * time.Second},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Unix(1000, 0)
			timers := &manualTimers{now: start}
			out := &logOutput{}
			m := newSplitOutputs[string](out, &watermark.Strategy[string]{Interval: 10 * time.Millisecond, Idleness: tt.idleness}, timers)
			m.status = out.status
			m.start()
			for _, id := range tt.splits {
				m.ForSplit(id)
			}
			for i, s := range tt.steps {
				out.log = nil
				if s.split != "" {
					if err := m.ForSplit(s.split).Collect(s.ts, s.split); err != nil {
						t.Fatal(err)
					}
				} else {
					timers.tick(t, start, s.at)
				}
				if !slices.Equal(out.log, s.wantLog) {
					t.Fatalf("step %d: emitted %q, want %q", i, out.log, s.wantLog)
				}
			}
		})
	}
}
