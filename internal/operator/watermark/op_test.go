package watermark

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/op"
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

// logOutput records what the operator emits and announces, in order.
type logOutput struct{ log []string }

func (l *logOutput) Collect(ts int64, v int64) error {
	l.log = append(l.log, fmt.Sprintf("%d@%d", v, ts))
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

// Idleness in the timestamp assigner (Flink's withIdleness): an assigner
// that received no element for Idleness announces IDLE at its periodic
// check, once; ACTIVE before its next element (and before a final
// watermark); never with Idleness 0. Its watermark keeps moving forward
// only.
func TestOpIdleness(t *testing.T) {
	type step struct {
		at   time.Duration // a tick at this time, when elem is 0
		elem int64         // an element with this timestamp
		max  bool          // the final watermark of a bounded input
	}
	cases := []struct {
		name       string
		idleness   time.Duration
		perElement bool
		steps      []step
		want       []string
	}{{
		name:     "idle after a quiet period, active at the next element",
		idleness: 30 * time.Millisecond,
		steps: []step{
			{elem: 1000}, {at: 10 * time.Millisecond},
			{at: 20 * time.Millisecond}, {at: 30 * time.Millisecond},
			{at: 40 * time.Millisecond}, {at: 50 * time.Millisecond},
			{elem: 900}, {at: 60 * time.Millisecond}, {elem: 2000}, {at: 70 * time.Millisecond},
		},
		want: []string{"1000@1000", "wm 999", "IDLE", "ACTIVE", "900@900", "2000@2000", "wm 1999"},
	}, {
		name:     "idle from the start without any element",
		idleness: 20 * time.Millisecond,
		steps:    []step{{at: 10 * time.Millisecond}, {at: 20 * time.Millisecond}, {at: 30 * time.Millisecond}, {max: true}},
		want:     []string{"IDLE", "ACTIVE", fmt.Sprintf("wm %d", op.MaxWatermark)},
	}, {
		name:  "never idle with Idleness 0",
		steps: []step{{elem: 5}, {at: time.Hour}, {at: 2 * time.Hour}},
		want:  []string{"5@5", "wm 4"},
	}, {
		name:       "per element with idleness",
		idleness:   10 * time.Millisecond,
		perElement: true,
		steps:      []step{{elem: 7}, {at: 10 * time.Millisecond}, {at: 20 * time.Millisecond}, {elem: 8}},
		want:       []string{"7@7", "wm 6", "IDLE", "ACTIVE", "8@8", "wm 7"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := &logOutput{}
			timers := &manualTimers{now: time.Unix(0, 0)}
			start := timers.now
			w := New(Strategy[int64]{
				Timestamp: func(v int64) int64 { return v }, Interval: 10 * time.Millisecond,
				Idleness: c.idleness, PerElement: c.perElement,
			}, op.Output[int64](out))
			w.SetWatermarkStatus(out.status)
			if err := w.Open(&op.Context{Timers: timers}); err != nil {
				t.Fatal(err)
			}
			for _, s := range c.steps {
				var err error
				switch {
				case s.max:
					err = w.ProcessWatermark(op.MaxWatermark)
				case s.elem != 0:
					err = w.ProcessElement(0, s.elem)
				default:
					timers.now = start.Add(s.at)
					err = timers.next()
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(out.log, c.want) {
				t.Fatalf("emitted %q, want %q", out.log, c.want)
			}
		})
	}
}
