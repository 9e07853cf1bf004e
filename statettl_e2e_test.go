package weir_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/clock"
)

// ttlEvent writes or reads the TTL state of its key: "write", "probe"
// (read, emit the answer now) or "final" (read, keep the answer, emit it
// at the end of input).
type ttlEvent struct {
	Key string
	Op  string
}

// ttlEvents: phase 1 writes k0..k19, phase 2 probes the odd keys, phase 3
// is the final read of all.
func ttlEvents() (events []ttlEvent, phaseEnds []int) {
	for i := range 20 {
		events = append(events, ttlEvent{fmt.Sprint("k", i), "write"})
	}
	phaseEnds = append(phaseEnds, len(events))
	for i := 1; i < 20; i += 2 {
		events = append(events, ttlEvent{fmt.Sprint("k", i), "probe"})
	}
	phaseEnds = append(phaseEnds, len(events))
	for i := range 20 {
		events = append(events, ttlEvent{fmt.Sprint("k", i), "final"})
	}
	return events, append(phaseEnds, len(events))
}

// gatedSplit is a source position; the source emits events while their
// index is below the gate.
type gatedSplit struct{ Next int64 }

func gatedSource[T any](env *weir.Env, events []T, gate *atomic.Int64) weir.DataStream[T] {
	return weir.FromSplits(env, weir.SplitSource[T, gatedSplit]{
		Name:   "events",
		Splits: func(int) ([]gatedSplit, error) { return []gatedSplit{{}}, nil },
		Read: func(s *gatedSplit, budget int, emit func(T) error) (bool, error) {
			for ; budget > 0 && s.Next < int64(len(events)); budget-- {
				if s.Next >= gate.Load() {
					runtime.Gosched()
					return false, nil
				}
				if err := emit(events[s.Next]); err != nil {
					return false, err
				}
				s.Next++
			}
			return s.Next == int64(len(events)), nil
		},
	}).SetParallelism(1).UID("events")
}

// ttlProbe keeps a TTL value per key and reports what it sees.
type ttlProbe struct {
	cfg       weir.StateTTLConfig
	v         weir.ValueState[int]
	verdict   weir.ValueState[string]
	processed *progress
	opens     *progress
	failKey   string
	failed    *atomic.Bool
}

func (p *ttlProbe) Open(rc *weir.KeyedRuntimeContext[string]) error {
	p.opens.add()
	var err error
	if p.v, err = weir.GetValueState[int](rc, "v", weir.WithStateTTL(p.cfg)); err != nil {
		return err
	}
	p.verdict, err = weir.GetValueState[string](rc, "verdict")
	return err
}

func (p *ttlProbe) ProcessElement(ctx *weir.KeyedContext[string, string], e ttlEvent) error {
	if e.Op == "final" && e.Key == p.failKey && p.failed.CompareAndSwap(false, true) {
		return fmt.Errorf("final read of %s: %w", e.Key, errDesignated)
	}
	defer p.processed.add()
	switch e.Op {
	case "write":
		p.v.Update(1)
	case "probe":
		_, ok := p.v.Value()
		ctx.Collect(fmt.Sprintf("probe %s %v", e.Key, ok))
	case "final":
		_, ok := p.v.Value()
		p.verdict.Update(fmt.Sprintf("final %s %v", e.Key, ok))
		ctx.TimerService().RegisterEventTimeTimer(math.MaxInt64)
	}
	return nil
}

func (p *ttlProbe) OnTimer(ctx *weir.KeyedContext[string, string], _ int64) error {
	if v, ok := p.verdict.Value(); ok {
		ctx.Collect(v)
	}
	return nil
}

// progress counts processed events; reached waits for a count.
type progress struct {
	mu      sync.Mutex
	n       int
	changed chan struct{}
}

func newProgress() *progress { return &progress{changed: make(chan struct{}, 1)} }

func (p *progress) add() {
	p.mu.Lock()
	p.n++
	p.mu.Unlock()
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

func (p *progress) reached(ctx context.Context, n int) error {
	for {
		p.mu.Lock()
		got := p.n
		p.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-p.changed:
		case <-ctx.Done():
			return fmt.Errorf("%d events processed, want %d: %w", got, n, ctx.Err())
		}
	}
}

// State TTL on the task's processing-time clock (a fake one the test
// advances), across a savepoint, a rescale and a failure. With a TTL of
// one hour: k0..k19 are written at 0:00; the odd keys are read at 0:40
// (all there); the job is stopped with a savepoint, restored at
// parallelism 3 instead of 2, and reads every key at 1:10, failing once in
// the middle of that (it restarts from its last checkpoint, at the same
// time). On the heap and in Pebble. Under OnCreateAndWrite every key expired at 1:00; under
// OnReadAndWrite the odd keys' read at 0:40 refreshed them until 1:40.
func TestStateTTLAcrossSavepointRescaleAndFailure(t *testing.T) {
	events, ends := ttlEvents()
	for _, tt := range []struct {
		update  weir.StateTTLUpdate
		backend weir.StateBackendKind
		visible func(i int) bool
	}{
		{weir.OnCreateAndWrite, weir.HashMap, func(int) bool { return false }},
		{weir.OnReadAndWrite, weir.HashMap, func(i int) bool { return i%2 == 1 }},
		{weir.OnReadAndWrite, weir.Pebble, func(i int) bool { return i%2 == 1 }},
	} {
		t.Run(fmt.Sprint(tt.update, "/", tt.backend), func(t *testing.T) {
			backend := weir.WithStateBackend(weir.StateBackend{Kind: tt.backend})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			cfg := weir.NewStateTTLConfig(time.Hour)
			cfg.Update = tt.update
			var gate atomic.Int64
			var failed atomic.Bool
			prog := newProgress()
			var mu sync.Mutex
			var out []string
			job := func(env *weir.Env, opens *progress) {
				keyed := weir.KeyBy(gatedSource(env, events, &gate), func(e ttlEvent) string { return e.Key })
				probes := weir.Process(keyed, weir.KeyedProcessFunction[string, ttlEvent, string](
					&ttlProbe{cfg: cfg, processed: prog, opens: opens, failKey: "k5", failed: &failed})).UID("probe")
				weir.AddSink(probes, func(s string) error {
					mu.Lock()
					defer mu.Unlock()
					out = append(out, s)
					return nil
				})
			}

			env := weir.NewEnv(weir.WithParallelism(2), weir.WithTaskClock(clk), backend,
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}))
			job(env, newProgress())
			c, err := env.ExecuteAsync(ctx, "ttl")
			if err != nil {
				t.Fatal(err)
			}
			gate.Store(int64(ends[0]))
			if err := prog.reached(ctx, ends[0]); err != nil {
				t.Fatal(err)
			}
			clk.Advance(40 * time.Minute)
			gate.Store(int64(ends[1]))
			if err := prog.reached(ctx, ends[1]); err != nil {
				t.Fatal(err)
			}
			loc, err := c.StopWithSavepoint(ctx, t.TempDir(), false)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Wait(); err != nil {
				t.Fatal(err)
			}
			var wantProbes []string
			for i := 1; i < 20; i += 2 {
				wantProbes = append(wantProbes, fmt.Sprintf("probe k%d true", i))
			}
			slices.Sort(out)
			slices.Sort(wantProbes)
			if !slices.Equal(out, wantProbes) {
				t.Fatalf("probes at 0:40: %v, want %v", out, wantProbes)
			}

			out = nil
			clk.Advance(30 * time.Minute)
			env = weir.NewEnv(weir.WithParallelism(3), weir.WithTaskClock(clk), backend, weir.WithRestoreFrom(loc, false),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(1, 0)))
			// The final reads fail at k5; the rest of them, and with them
			// the end of input that emits the verdicts, follow once the
			// job restarted (its probes opened a second time), so no
			// verdict is emitted twice by the sink, which is not
			// transactional.
			opens := newProgress()
			job(env, opens)
			gate.Store(int64(ends[1] + 10))
			c, err = env.ExecuteAsync(ctx, "ttl-restored")
			if err != nil {
				t.Fatal(err)
			}
			if err := opens.reached(ctx, 6); err != nil {
				t.Fatal(err)
			}
			gate.Store(int64(ends[2]))
			res, err := c.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if res.Restarts != 1 {
				t.Fatalf("%d restarts, want the designated failure's 1", res.Restarts)
			}
			var want []string
			for i := range 20 {
				want = append(want, fmt.Sprintf("final k%d %v", i, tt.visible(i)))
			}
			slices.Sort(out)
			slices.Sort(want)
			if !slices.Equal(out, want) {
				t.Fatalf("final reads at 1:10: %v, want %v", out, want)
			}
		})
	}
}
