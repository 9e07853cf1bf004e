package weir_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// gatedInts is a non-parallel source of 0..total-1 that emits only below
// *stop, which the test moves on: a job over it runs until the test stops
// it (with a savepoint) or lets it reach total. It resumes from its
// position on restore.
func gatedInts(env *weir.Env, total int64, stop *atomic.Int64) weir.DataStream[int64] {
	return gated(env, "gated", total, stop, func(i int64) int64 { return i })
}

// gated is gatedInts of at(0), at(1), ..., at(total-1), with uid.
func gated[T any](env *weir.Env, uid string, total int64, stop *atomic.Int64, at func(int64) T) weir.DataStream[T] {
	return weir.FromSplits(env, weir.SplitSource[T, intsSplit]{
		Name:   uid,
		Splits: func(int) ([]intsSplit, error) { return []intsSplit{{}}, nil },
		Read: func(s *intsSplit, budget int, emit func(T) error) (bool, error) {
			for ; budget > 0 && s.Next < total; budget-- {
				if s.Next >= stop.Load() {
					// Nothing to emit yet: the task's loop runs its mail
					// (barriers, the stop) before it polls again.
					runtime.Gosched()
					return false, nil
				}
				if err := emit(at(s.Next)); err != nil {
					return false, err
				}
				s.Next++
			}
			return s.Next >= total, nil
		},
	}).SetParallelism(1).UID(uid)
}

// probe is what the subtasks of a test job report to the test: the state
// each restored, and when one of them saw a given element.
type probe struct {
	mu      sync.Mutex
	inits   []tallyInit
	want    int64
	min     int // attempt
	reached chan struct{}
}

type tallyInit struct {
	Phase, Attempt, Subtask int
	Split                   []int64
	Union                   []share
}

// expect returns a channel closed when a subtask of attempt min or later
// saw element v.
func (p *probe) expect(v int64, min int) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.want, p.min, p.reached = v, min, make(chan struct{})
	return p.reached
}

func (p *probe) saw(v int64, attempt int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reached != nil && v == p.want && attempt >= p.min {
		close(p.reached)
		p.reached = nil
	}
}

func (p *probe) initsOf(phase, attempt int) []tallyInit {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []tallyInit
	for _, in := range p.inits {
		if in.Phase == phase && in.Attempt == attempt {
			out = append(out, in)
		}
	}
	slices.SortFunc(out, func(a, b tallyInit) int { return a.Subtask - b.Subtask })
	return out
}

// share is a subtask's union list entry: how many elements it holds.
type share struct{ Subtask, Count int }

// tally keeps every element it saw in split list state and its share in
// union list state. In the last phase, at element last, it emits all the
// elements its state holds.
type tally struct {
	probe   *probe
	phase   int
	last    int64
	fail    *atomic.Bool // set: fail at the next element of attempt 0
	seen    []int64
	split   weir.ListState[int64]
	union   weir.ListState[share]
	subtask int
	attempt int
}

func (f *tally) InitializeState(ctx *weir.StateInitializationContext) error {
	var err error
	if f.split, err = weir.GetOperatorListState[int64](ctx, "seen"); err != nil {
		return err
	}
	if f.union, err = weir.GetUnionListState[share](ctx, "shares"); err != nil {
		return err
	}
	f.subtask, f.attempt = ctx.SubtaskIndex, ctx.Attempt
	f.seen = slices.Clone(f.split.Get())
	if ctx.IsRestored() {
		f.probe.mu.Lock()
		f.probe.inits = append(f.probe.inits, tallyInit{Phase: f.phase, Attempt: f.attempt, Subtask: f.subtask,
			Split: slices.Clone(f.seen), Union: slices.Clone(f.union.Get())})
		f.probe.mu.Unlock()
	}
	return nil
}

func (f *tally) SnapshotState(weir.StateSnapshotContext) error {
	f.split.Update(f.seen)
	f.union.Update([]share{{f.subtask, len(f.seen)}})
	return nil
}

func (f *tally) FlatMap(v int64, out weir.Collector[int64]) error { return f.step(v, out.Collect) }

func (f *tally) ProcessElement(ctx *weir.ProcessContext[int64], v int64) error {
	return f.step(v, ctx.Collect)
}

func (f *tally) step(v int64, emit func(int64)) error {
	if f.attempt == 0 && f.fail != nil && f.fail.CompareAndSwap(true, false) {
		return fmt.Errorf("designated failure at %d", v)
	}
	f.seen = append(f.seen, v)
	f.probe.saw(v, f.attempt)
	if v == f.last {
		for _, s := range slices.Sorted(slices.Values(f.seen)) {
			emit(s)
		}
	}
	return nil
}

// A job with split and union list state runs at parallelism 2, stops with
// a savepoint, resumes at 3 (where it fails once and restarts from a
// checkpoint), stops with a savepoint again and finishes at 1. The split
// list entries are dealt out, each to one subtask; every subtask gets all
// union list entries; no element is lost or counted twice. The function
// runs as a FlatMap and as a non-keyed ProcessStream.
func TestOperatorStateRescale2To3To1(t *testing.T) {
	for _, tt := range []struct {
		name  string
		apply func(weir.DataStream[int64], *tally) weir.DataStream[int64]
	}{
		{"flatmap", func(s weir.DataStream[int64], f *tally) weir.DataStream[int64] {
			return weir.FlatMapWith(s, weir.FlatMapFunction[int64, int64](f))
		}},
		{"process", func(s weir.DataStream[int64], f *tally) weir.DataStream[int64] {
			return weir.ProcessStream(s, weir.ProcessFunction[int64, int64](f))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) { testOperatorStateRescale(t, tt.apply) })
	}
}

func testOperatorStateRescale(t *testing.T, apply func(weir.DataStream[int64], *tally) weir.DataStream[int64]) {
	const l1, p2, l2, total = 1000, 1500, 2000, 2500
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pr := &probe{}
	var stop atomic.Int64
	var fail atomic.Bool
	job := func(p int, phase int, opts ...weir.Option) (*weir.Env, weir.DataStream[int64]) {
		env := weir.NewEnv(append([]weir.Option{weir.WithParallelism(p)}, opts...)...)
		fn := &tally{probe: pr, phase: phase, last: total - 1, fail: &fail}
		return env, apply(gatedInts(env, total, &stop), fn).UID("tally")
	}
	discard := func(int64) error { return nil }

	// Phase 1, parallelism 2: elements [0, l1).
	stop.Store(l1)
	env, s := job(2, 1, weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	weir.AddSink(s, discard).UID("out")
	sp1, _ := runUntilSavepoint(ctx, t, env, pr.expect(l1-1, 0), nil)

	// Phase 2, parallelism 3: [l1, l2), with a failure after a checkpoint.
	stop.Store(p2)
	env, s = job(3, 2, weir.WithRestoreFrom(sp1, false), weir.WithRestartStrategy(weir.FixedDelayRestart(1, 0)),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 5 * time.Millisecond}))
	weir.AddSink(s, discard).UID("out")
	sp2, restarts := runUntilSavepoint(ctx, t, env, pr.expect(p2-1, 0), func(c *weir.JobClient) <-chan struct{} {
		awaitCompletedCheckpoint(ctx, t, c)
		reached := pr.expect(l2-1, 1)
		fail.Store(true)
		stop.Store(l2)
		return reached
	})

	if restarts != 1 {
		t.Errorf("phase 2 restarted %d times, want 1", restarts)
	}

	// What the three subtasks of phase 2 restored from the savepoint of 2.
	inits := pr.initsOf(2, 0)
	if len(inits) != 3 {
		t.Fatalf("%d subtasks restored in phase 2, want 3", len(inits))
	}
	var split []int64
	for _, in := range inits {
		if n := len(in.Split); n < l1/3 || n > l1/3+1 {
			t.Errorf("subtask %d of 3 restored %d split entries, want %d or %d of %d", in.Subtask, n, l1/3, l1/3+1, l1)
		}
		split = append(split, in.Split...)
		if !slices.Equal(in.Union, inits[0].Union) || len(in.Union) != 2 || in.Union[0].Count+in.Union[1].Count != l1 {
			t.Errorf("subtask %d of 3 restored union %v, want the 2 shares of the old subtasks summing to %d, as the others (%v)", in.Subtask, in.Union, l1, inits[0].Union)
		}
	}
	checkRange(t, "split entries at 3", split, 0, l1)

	// Phase 3, parallelism 1: the rest; the output is the whole state.
	stop.Store(total)
	_, s = job(1, 3, weir.WithRestoreFrom(sp2, false))
	got, err := weir.Collect(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	checkRange(t, "output at 1", got, 0, total)
	inits = pr.initsOf(3, 0)
	if len(inits) != 1 {
		t.Fatalf("%d subtasks restored in phase 3, want 1", len(inits))
	}
	checkRange(t, "split entries at 1", inits[0].Split, 0, l2)
	var sum int
	for _, sh := range inits[0].Union {
		sum += sh.Count
	}
	if len(inits[0].Union) != 3 || sum != l2 {
		t.Errorf("union at 1: %v, want the 3 shares of phase 2 summing to %d", inits[0].Union, l2)
	}
}

// runUntilSavepoint runs env's job until reached is closed, calls then
// (when set), which may return the next channel to wait for, and stops
// the job with a savepoint. It returns the savepoint's location and the
// number of restarts.
func runUntilSavepoint(ctx context.Context, t *testing.T, env *weir.Env, reached <-chan struct{}, then func(*weir.JobClient) <-chan struct{}) (string, int) {
	t.Helper()
	c, err := env.ExecuteAsync(ctx, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	await := func(ch <-chan struct{}) {
		select {
		case <-ch:
		case <-c.Done():
			_, err := c.Wait()
			t.Fatalf("the job ended early: %v", err)
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
	await(reached)
	if then != nil {
		await(then(c))
	}
	loc, err := c.StopWithSavepoint(ctx, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return loc, res.Restarts
}

// awaitCompletedCheckpoint waits until the job completed a checkpoint. The
// job client reports checkpoints as a status only, so it polls.
func awaitCompletedCheckpoint(ctx context.Context, t *testing.T, c *weir.JobClient) {
	t.Helper()
	for c.Status().Checkpoints.Completed == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("no checkpoint completed")
		case <-c.Done():
			t.Fatal("the job ended before a checkpoint completed")
		case <-time.After(time.Millisecond):
		}
	}
}

// checkRange checks that vs holds each of [from, to) once.
func checkRange(t *testing.T, what string, vs []int64, from, to int64) {
	t.Helper()
	s := slices.Sorted(slices.Values(vs))
	ok := int64(len(s)) == to-from
	for i := 0; ok && i < len(s); i++ {
		ok = s[i] == from+int64(i)
	}
	if !ok {
		t.Errorf("%s: %d values, not each of [%d, %d) once", what, len(s), from, to)
	}
}
