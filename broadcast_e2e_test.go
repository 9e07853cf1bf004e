package weir_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// factor is a broadcast rule: the factor of a key's sum.
type factor struct {
	Key    string
	Factor int64
}

var factorsState = weir.NewMapStateDescriptor[string, int64]("factors")

// scaledSum keeps, per key, the sum of the key's elements times the key's
// factor in broadcast state (1 without one). A new factor rescales the
// key's sum (ApplyToKeyedState), so the final sum is the sum of the
// elements times the last factor, whatever the order in which rules and
// elements arrive. At the end of input it emits each key's sum. The first
// broadcast element a subtask sees reports the broadcast state it
// restored.
type scaledSum struct {
	reports *stateReports
	phase   int
	fail    *atomic.Bool
	ints    *probe
	sum     weir.ValueState[int64]
	subtask int
	attempt int
	started bool
}

func (f *scaledSum) Open(rc *weir.KeyedRuntimeContext[string]) error {
	f.subtask, f.attempt = rc.SubtaskIndex, rc.Attempt
	var err error
	f.sum, err = weir.GetValueState[int64](rc, "sum")
	return err
}

func (f *scaledSum) ProcessElement(ctx *weir.KeyedReadOnlyBroadcastContext[string, string], v int64) error {
	if f.attempt == 0 && f.fail.CompareAndSwap(true, false) {
		return fmt.Errorf("designated failure at %d", v)
	}
	factors, err := weir.GetReadOnlyBroadcastState(ctx, factorsState)
	if err != nil {
		return err
	}
	k, ok := factors.Get(ctx.Key())
	if !ok {
		k = 1
	}
	s, _ := f.sum.Value()
	f.sum.Update(s + v*k)
	ctx.TimerService().RegisterEventTimeTimer(math.MaxInt64)
	f.ints.saw(v, f.attempt)
	return nil
}

func (f *scaledSum) ProcessBroadcastElement(ctx *weir.KeyedBroadcastContext[string, string], r factor) error {
	factors, err := weir.GetBroadcastState(ctx, factorsState)
	if err != nil {
		return err
	}
	if !f.started {
		f.started = true
		f.reports.add(f.phase, f.attempt, f.subtask, maps.Collect(factors.All()))
	}
	old, ok := factors.Get(r.Key)
	if !ok {
		old = 1
	}
	factors.Put(r.Key, r.Factor)
	return ctx.ApplyToKeyedState("sum", func(key string) error {
		if key == r.Key {
			s, _ := f.sum.Value()
			f.sum.Update(s / old * r.Factor)
		}
		return nil
	})
}

func (f *scaledSum) OnTimer(ctx *weir.KeyedContext[string, string], _ int64) error {
	s, _ := f.sum.Value()
	ctx.Collect(fmt.Sprintf("%s=%d", ctx.Key(), s))
	return nil
}

// stateReports collects the broadcast state each subtask started from.
type stateReports struct {
	mu   sync.Mutex
	all  []stateReport
	want map[int]int // phase -> reports that close done
	done map[int]chan struct{}
}

type stateReport struct {
	Phase, Attempt, Subtask int
	State                   map[string]int64
}

func (r *stateReports) await(phase, n int) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.want == nil {
		r.want, r.done = map[int]int{}, map[int]chan struct{}{}
	}
	r.want[phase], r.done[phase] = n, make(chan struct{})
	return r.done[phase]
}

func (r *stateReports) add(phase, attempt, subtask int, st map[string]int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, stateReport{phase, attempt, subtask, st})
	if attempt == 0 && r.want[phase] > 0 {
		if r.want[phase]--; r.want[phase] == 0 {
			close(r.done[phase])
		}
	}
}

func (r *stateReports) of(phase int) []stateReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []stateReport
	for _, s := range r.all {
		if s.Phase == phase && s.Attempt == 0 {
			out = append(out, s)
		}
	}
	return out
}

// A keyed broadcast job runs at parallelism 2, stops with a savepoint,
// resumes at 3 (a failure, a restart from a checkpoint), stops with a
// savepoint again and finishes at 1: every subtask of each restore starts
// from the same broadcast state, and the keyed sums are exact.
func TestBroadcastStateRescale2To3To1(t *testing.T) {
	const l1, p2, l2, total = 1000, 1500, 2000, 2500
	rules := []factor{{"k0", 2}, {"k1", 3}, {"k2", 5}, {"k0", 7}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	reports, ints := &stateReports{}, &probe{}
	var stopInts, stopRules atomic.Int64
	var fail atomic.Bool
	job := func(p, phase int, opts ...weir.Option) (*weir.Env, weir.DataStream[string]) {
		env := weir.NewEnv(append([]weir.Option{weir.WithParallelism(p)}, opts...)...)
		keyed := weir.KeyBy(gatedInts(env, total, &stopInts), func(v int64) string { return fmt.Sprintf("k%d", v%4) })
		bc := weir.Broadcast(gated(env, "rules", int64(len(rules)), &stopRules, func(i int64) factor { return rules[i] }), factorsState)
		fn := &scaledSum{reports: reports, phase: phase, fail: &fail, ints: ints}
		return env, weir.ProcessKeyedBroadcast(weir.ConnectKeyedBroadcast(keyed, bc),
			weir.KeyedBroadcastProcessFunction[string, int64, factor, string](fn)).UID("scaled")
	}
	discard := func(string) error { return nil }
	checkReports := func(phase, n int, want map[string]int64) {
		t.Helper()
		got := reports.of(phase)
		if len(got) != n {
			t.Fatalf("phase %d: %d subtasks reported their broadcast state, want %d", phase, len(got), n)
		}
		for _, r := range got {
			if !maps.Equal(r.State, want) {
				t.Errorf("phase %d: subtask %d of %d restored broadcast state %v, want %v", phase, r.Subtask, n, r.State, want)
			}
		}
	}

	// Phase 1, parallelism 2: the first two rules and [0, l1).
	stopRules.Store(2)
	stopInts.Store(l1)
	env, s := job(2, 1, weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	weir.AddSink(s, discard).UID("out")
	reached := ints.expect(l1-1, 0)
	sp1, _ := runUntilSavepoint(ctx, t, env, reports.await(1, 2), func(*weir.JobClient) <-chan struct{} { return reached })

	// Phase 2, parallelism 3: the third rule, [l1, l2), a failure.
	stopRules.Store(3)
	stopInts.Store(l1)
	env, s = job(3, 2, weir.WithRestoreFrom(sp1, false), weir.WithRestartStrategy(weir.FixedDelayRestart(1, 0)),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 5 * time.Millisecond}))
	weir.AddSink(s, discard).UID("out")
	sp2, restarts := runUntilSavepoint(ctx, t, env, reports.await(2, 3), func(c *weir.JobClient) <-chan struct{} {
		reached := ints.expect(p2-1, 0)
		stopInts.Store(p2)
		select {
		case <-reached:
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
		awaitCompletedCheckpoint(ctx, t, c)
		reached = ints.expect(l2-1, 1)
		fail.Store(true)
		stopInts.Store(l2)
		return reached
	})
	if restarts != 1 {
		t.Errorf("phase 2 restarted %d times, want 1", restarts)
	}
	checkReports(2, 3, map[string]int64{"k0": 2, "k1": 3})

	// Phase 3, parallelism 1: the last rule and the rest.
	stopRules.Store(int64(len(rules)))
	stopInts.Store(total)
	_, s = job(1, 3, weir.WithRestoreFrom(sp2, false))
	got, err := weir.Collect(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	checkReports(3, 1, map[string]int64{"k0": 2, "k1": 3, "k2": 5})
	final := map[string]int64{"k0": 7, "k1": 3, "k2": 5, "k3": 1}
	var want []string
	for k := range 4 {
		var sum int64
		for v := int64(k); v < total; v += 4 {
			sum += v
		}
		key := fmt.Sprintf("k%d", k)
		want = append(want, fmt.Sprintf("%s=%d", key, sum*final[key]))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("got %s, want %s", strings.Join(got, " "), strings.Join(want, " "))
	}
}

var undeclared = weir.NewMapStateDescriptor[string, int64]("undeclared")

// multiply multiplies every element by the broadcast factor "all".
type multiply struct {
	reports *stateReports
	errs    chan error
	subtask int
}

func (f *multiply) Open(rc *weir.RuntimeContext) error { f.subtask = rc.SubtaskIndex; return nil }

func (f *multiply) ProcessElement(ctx *weir.ReadOnlyBroadcastContext[int64], v int64) error {
	factors, err := weir.GetReadOnlyBroadcastState(ctx, factorsState)
	if err != nil {
		return err
	}
	k, _ := factors.Get("all")
	ctx.Collect(v * k)
	return nil
}

func (f *multiply) ProcessBroadcastElement(ctx *weir.BroadcastContext[int64], r factor) error {
	if _, err := weir.GetBroadcastState(ctx, undeclared); err == nil {
		f.errs <- errors.New("a state not declared on the broadcast stream was accessible")
	} else if !strings.Contains(err.Error(), `"undeclared" was not declared`) {
		f.errs <- fmt.Errorf("undeclared state: error %v does not say so", err)
	}
	factors, err := weir.GetBroadcastState(ctx, factorsState)
	if err != nil {
		return err
	}
	factors.Put(r.Key, r.Factor)
	f.reports.add(1, 0, f.subtask, maps.Collect(factors.All()))
	return nil
}

// The non-keyed broadcast pattern: once every subtask holds the rule, the
// elements are multiplied by it; a state that Broadcast did not declare
// is an error.
func TestBroadcastNonKeyed(t *testing.T) {
	const total, p = 1000, 3
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	reports := &stateReports{}
	errs := make(chan error, 2*p)
	var stopInts, stopRules atomic.Int64
	env := weir.NewEnv(weir.WithParallelism(p))
	ints := gatedInts(env, total, &stopInts).Rebalance()
	rules := weir.Broadcast(gated(env, "rules", 1, &stopRules, func(int64) factor { return factor{"all", 3} }), factorsState)
	out := weir.ProcessBroadcast(weir.ConnectBroadcast(ints, rules), weir.BroadcastProcessFunction[int64, factor, int64](&multiply{reports: reports, errs: errs}))
	held := reports.await(1, p)
	stopRules.Store(1)
	go func() {
		select {
		case <-held:
			stopInts.Store(total)
		case <-ctx.Done():
		}
	}()
	got, err := weir.Collect(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var sum int64
	for _, v := range got {
		sum += v
	}
	if len(got) != total || sum != 3*total*(total-1)/2 {
		t.Fatalf("%d elements summing to %d, want %d summing to %d", len(got), sum, total, 3*total*(total-1)/2)
	}
}
