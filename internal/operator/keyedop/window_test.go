package keyedop

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
)

// manualClock is a task clock that moves only when the test says, running
// the callbacks that came due, in time order, as the task's mailbox does.
type manualClock struct {
	now     int64
	pending []scheduled
	last    op.TimerID
}

type scheduled struct {
	at int64
	id op.TimerID
	fn func() error
}

func (c *manualClock) Now() time.Time { return time.UnixMilli(c.now) }

func (c *manualClock) Schedule(t time.Time, fn func() error) op.TimerID {
	c.last++
	c.pending = append(c.pending, scheduled{t.UnixMilli(), c.last, fn})
	return c.last
}

func (c *manualClock) Cancel(id op.TimerID) {
	c.pending = slices.DeleteFunc(c.pending, func(s scheduled) bool { return s.id == id })
}

func (c *manualClock) advance(t *testing.T, to int64) {
	t.Helper()
	c.now = to
	for {
		sort.SliceStable(c.pending, func(i, j int) bool { return c.pending[i].at < c.pending[j].at })
		if len(c.pending) == 0 || c.pending[0].at > to {
			return
		}
		s := c.pending[0]
		c.pending = c.pending[1:]
		if err := s.fn(); err != nil {
			t.Fatal(err)
		}
	}
}

type kv struct {
	K string
	V int
}

// collected records what an operator emits.
type collected struct{ out []string }

func (c *collected) Collect(_ int64, v string) error { c.out = append(c.out, v); return nil }
func (c *collected) EmitWatermark(int64) error       { return nil }

// openWindow opens a window operator summing V per key and window on a
// manual clock.
func openWindow(t *testing.T, a Assigner, clock *manualClock) (op.Input[kv], *collected) {
	t.Helper()
	out := &collected{}
	fns := WindowFuncs[string, kv, int, string, Window]{
		NewAcc: func() int { return 0 },
		Add:    func(v kv, acc int) (int, error) { return acc + v.V, nil },
		Merge:  func(a, b int) (int, error) { return a + b, nil },
		Result: func(k string, w Window, acc int) (string, error) {
			return fmt.Sprintf("%s [%d, %d) %d", k, w.Start, w.End, acc), nil
		},
	}
	spec := WindowSpec[string, kv, Window]{Assigner: a, Key: func(v kv) string { return v.K },
		Hash: func(k string) uint32 { return uint32(len(k)) }}
	if err := ValidateWindow(spec, fns); err != nil {
		t.Fatal(err)
	}
	w := NewWindow(spec, fns, op.Output[string](out))
	ctx := &op.Context{MaxParallelism: 128, KeyGroups: keygroup.RangeFor(128, 1, 0), Timers: clock}
	if err := w.(op.Operator).Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.(op.Operator).Close() })
	return w.(op.Input[kv]), out
}

// Processing-time windows take the clock when the element arrives and
// fire when the clock passes their end (Flink's processing-time
// assigners with the ProcessingTimeTrigger); sessions merge, and the
// merged-away windows' timers do not fire.
func TestProcessingTimeWindows(t *testing.T) {
	type step struct {
		at int64
		in []kv // arriving at `at`
		// want is what fired when the clock reached `at`, before in.
		want []string
	}
	tests := []struct {
		name  string
		a     Assigner
		steps []step
	}{
		{"tumbling", Assigner{Size: 10, Slide: 10, Processing: true}, []step{
			{3, []kv{{"a", 1}, {"b", 2}, {"a", 4}}, nil},
			{8, nil, nil},
			// The timer is at the window's max timestamp, 9, and fires
			// once the clock is past it: an element of 9 is still in.
			{9, []kv{{"b", 1}}, nil},
			{10, []kv{{"a", 8}}, []string{"a [0, 10) 5", "b [0, 10) 3"}},
			{25, nil, []string{"a [10, 20) 8"}},
		}},
		{"sliding", Assigner{Size: 10, Slide: 5, Processing: true}, []step{
			{7, []kv{{"a", 1}}, nil},
			{12, []kv{{"a", 2}}, []string{"a [0, 10) 1"}},
			{15, nil, []string{"a [5, 15) 3"}},
			{30, nil, []string{"a [10, 20) 2"}},
		}},
		{"sessions", Assigner{Session: true, Gap: 10, Processing: true}, []step{
			{0, []kv{{"a", 1}}, nil},
			{8, []kv{{"a", 2}, {"b", 16}}, nil},
			// [0,10) merged into [0,18): its timer at 9 is gone.
			{15, nil, nil},
			// At 17 both sessions are still open: a's element of 17
			// extends its session to [0, 27).
			{17, []kv{{"a", 4}}, nil},
			{18, nil, []string{"b [8, 18) 16"}},
			{26, nil, nil},
			{27, nil, []string{"a [0, 27) 7"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &manualClock{}
			in, out := openWindow(t, tt.a, clock)
			for _, s := range tt.steps {
				clock.advance(t, s.at)
				fired := out.out
				out.out = nil
				for _, v := range s.in {
					if err := in.ProcessElement(op.NoTimestamp, v); err != nil {
						t.Fatal(err)
					}
				}
				slices.Sort(fired)
				if !slices.Equal(fired, s.want) {
					t.Fatalf("at %d fired %q, want %q", s.at, fired, s.want)
				}
			}
		})
	}
}
