package weir_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// lookup is a simulated enrichment service: element i is worth i*3+1.
// While holding, calls for the held elements block until their context is
// cancelled; failAt fails one call once.
type lookup struct {
	mu      sync.Mutex
	calls   map[int64]int
	blocked map[int64]int // calls of each element blocked now (two attempts may overlap)
	changed chan struct{}
	held    func(i int64) bool
	failAt  int64
	failed  atomic.Bool
}

type enriched struct {
	Key   int
	Value int64
}

var errDesignated = errors.New("designated failure")

func newLookup(held func(int64) bool, failAt int64) *lookup {
	return &lookup{calls: map[int64]int{}, blocked: map[int64]int{}, changed: make(chan struct{}, 1), held: held, failAt: failAt}
}

func (l *lookup) call(ctx context.Context, i int64) ([]enriched, error) {
	l.mu.Lock()
	l.calls[i]++
	l.mu.Unlock()
	if i == l.failAt && l.failed.CompareAndSwap(false, true) {
		return nil, fmt.Errorf("lookup %d: %w", i, errDesignated)
	}
	if l.held(i) {
		l.setBlocked(i, true)
		<-ctx.Done()
		l.setBlocked(i, false)
		return nil, ctx.Err()
	}
	return []enriched{{Key: int(i % 7), Value: i*3 + 1}}, nil
}

func (l *lookup) setBlocked(i int64, b bool) {
	l.mu.Lock()
	if b {
		l.blocked[i]++
	} else if l.blocked[i]--; l.blocked[i] == 0 {
		delete(l.blocked, i)
	}
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// awaitBlocked waits until exactly n calls are blocked.
func (l *lookup) awaitBlocked(ctx context.Context, n int) error {
	for {
		l.mu.Lock()
		got := 0
		for _, c := range l.blocked {
			got += c
		}
		l.mu.Unlock()
		if got == n {
			return nil
		}
		select {
		case <-l.changed:
		case <-ctx.Done():
			return fmt.Errorf("%d calls blocked, want %d: %w", got, n, ctx.Err())
		}
	}
}

// awaitRestarted waits until c's job restarted once and runs again.
func awaitRestarted(ctx context.Context, t *testing.T, c *weir.JobClient) {
	t.Helper()
	for {
		s := c.Status()
		if s.Restarts == 1 && s.State == "RUNNING" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the job did not run again after its designated failure: %d restarts, state %s", s.Restarts, s.State)
		case <-c.Done():
			t.Fatalf("the job ended before it ran again after its designated failure: %d restarts, state %s", s.Restarts, s.State)
		case <-time.After(time.Millisecond):
		}
	}
}

// pausingSplit is a source split [Next, End) that stops at Pause while the
// source is paused.
type pausingSplit struct{ Next, End, Pause int64 }

func pausingSource(env *weir.Env, splits, perSplit, pauseAt int64, paused *atomic.Bool) weir.DataStream[int64] {
	return weir.FromSplits(env, weir.SplitSource[int64, pausingSplit]{
		Name: "ints",
		Splits: func(int) ([]pausingSplit, error) {
			var ss []pausingSplit
			for s := int64(0); s < splits; s++ {
				ss = append(ss, pausingSplit{Next: s * perSplit, End: (s + 1) * perSplit, Pause: s*perSplit + pauseAt})
			}
			return ss, nil
		},
		Read: func(s *pausingSplit, budget int, emit func(int64) error) (bool, error) {
			for ; budget > 0 && s.Next < s.End; budget-- {
				if s.Next == s.Pause && paused.Load() {
					runtime.Gosched() // the task's loop runs its mail, then polls again
					return false, nil
				}
				if err := emit(s.Next); err != nil {
					return false, err
				}
				s.Next++
			}
			return s.Next >= s.End, nil
		},
	}).UID("src")
}

type keySum struct {
	Key        int
	Sum, Count int64
}

// summer keeps a sum and a count per key and emits them at the end of
// input (a timer at the last watermark), so that the output shows the
// state, not the records that reached it before a failure.
type summer struct{ sum weir.ValueState[keySum] }

func (s *summer) Open(rc *weir.KeyedRuntimeContext[int]) error {
	var err error
	s.sum, err = weir.GetValueState[keySum](rc, "sum")
	return err
}

func (s *summer) ProcessElement(ctx *weir.KeyedContext[int, keySum], e enriched) error {
	v, _ := s.sum.Value()
	v.Key, v.Sum, v.Count = e.Key, v.Sum+e.Value, v.Count+1
	s.sum.Update(v)
	ctx.TimerService().RegisterEventTimeTimer(math.MaxInt64)
	return nil
}

func (s *summer) OnTimer(ctx *weir.KeyedContext[int, keySum], _ int64) error {
	if v, ok := s.sum.Value(); ok {
		ctx.Collect(v)
	}
	return nil
}

func enrichJob(env *weir.Env, ordered bool, svc *lookup, splits, perSplit, pauseAt int64, paused *atomic.Bool, out *[]keySum, mu *sync.Mutex) {
	wait := weir.AsyncWait[int64, enriched]
	if ordered {
		wait = weir.AsyncWaitOrdered[int64, enriched]
	}
	src := pausingSource(env, splits, perSplit, pauseAt, paused)
	enrichedStream := wait(src, svc.call, time.Minute, weir.WithAsyncCapacity(50)).UID("enrich")
	sums := weir.Process(weir.KeyBy(enrichedStream, func(e enriched) int { return e.Key }),
		weir.KeyedProcessFunction[int, enriched, keySum](&summer{})).UID("sum")
	weir.AddSink(sums, func(v keySum) error {
		mu.Lock()
		defer mu.Unlock()
		*out = append(*out, v)
		return nil
	})
}

// Enrichment through an async lookup keeps exactly-once state across a
// failure and a rescale: a job at parallelism 2 with checkpoints fails once
// (the lookup's error fails the job, which restarts from its last
// checkpoint), then is stopped with a savepoint while the last five
// lookups of each split are in flight; the job restored from it at
// parallelism 3 issues those lookups again and runs to the end. Each key's
// sum and count are exact: no lookup result was lost or counted twice.
func TestAsyncWaitExactlyOnceAcrossFailureAndRescale(t *testing.T) {
	const splits, perSplit, pauseAt, held = 2, 3000, 2000, 5
	want := map[int]keySum{}
	for i := int64(0); i < splits*perSplit; i++ {
		k := want[int(i%7)]
		k.Key, k.Sum, k.Count = int(i%7), k.Sum+i*3+1, k.Count+1
		want[int(i%7)] = k
	}
	isHeld := func(i int64) bool { off := i % perSplit; return off >= pauseAt-held && off < pauseAt }
	for _, ordered := range []bool{true, false} {
		t.Run(map[bool]string{true: "ordered", false: "unordered"}[ordered], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var mu sync.Mutex
			var out []keySum
			var paused atomic.Bool
			paused.Store(true)

			svc := newLookup(isHeld, 1500)
			env := weir.NewEnv(weir.WithParallelism(2),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(1, 10*time.Millisecond)))
			enrichJob(env, ordered, svc, splits, perSplit, pauseAt, &paused, &out, &mu)
			c, err := env.ExecuteAsync(ctx, "enrich")
			if err != nil {
				t.Fatal(err)
			}
			// The stop must come after the designated failure's restart:
			// during the failover it is refused (RESTARTING, or its
			// savepoint aborted by the failover).
			awaitRestarted(ctx, t, c)
			if err := svc.awaitBlocked(ctx, splits*held); err != nil {
				t.Fatal(err)
			}
			loc, err := c.StopWithSavepoint(ctx, t.TempDir(), false)
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if res.Restarts != 1 || !svc.failed.Load() {
				t.Fatalf("%d restarts, want the designated failure's 1", res.Restarts)
			}
			t.Logf("first run: %d checkpoints, %d restarts", res.Checkpoints.Completed, res.Restarts)
			if len(out) != 0 {
				t.Fatalf("emitted %v before the end of input", out)
			}

			paused.Store(false)
			svc2 := newLookup(func(int64) bool { return false }, -1)
			env = weir.NewEnv(weir.WithParallelism(3), weir.WithRestoreFrom(loc, false),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}))
			enrichJob(env, ordered, svc2, splits, perSplit, pauseAt, &paused, &out, &mu)
			if _, err := env.Execute(ctx, "enrich-restored"); err != nil {
				t.Fatal(err)
			}
			// The held lookups were in flight at the savepoint: the restored
			// job issues them again. Others just before them may have been
			// in flight too; those after the pause are new.
			for i := int64(0); i < splits*perSplit; i++ {
				n, after := svc2.calls[i], i%perSplit >= pauseAt
				if (isHeld(i) || after) && n != 1 || n > 1 {
					t.Fatalf("lookup %d called %d times by the restored job (held at the savepoint: %v)", i, n, isHeld(i))
				}
			}
			slices.SortFunc(out, func(a, b keySum) int { return a.Key - b.Key })
			var wantOut []keySum
			for k := 0; k < 7; k++ {
				wantOut = append(wantOut, want[k])
			}
			if !slices.Equal(out, wantOut) {
				t.Fatalf("sums %v, want %v", out, wantOut)
			}
		})
	}
}

// A timeout fails the job with ErrAsyncTimeout unless a handler gives the
// results.
func TestAsyncWaitTimeout(t *testing.T) {
	never := func(ctx context.Context, i int) ([]string, error) {
		if i == 3 {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return []string{fmt.Sprint(i)}, nil
	}
	env := weir.NewEnv(weir.WithParallelism(1))
	_, err := weir.Collect(context.Background(), weir.AsyncWaitOrdered(weir.FromSlice(env, []int{1, 2, 3, 4}), never, 20*time.Millisecond))
	if !errors.Is(err, weir.ErrAsyncTimeout) {
		t.Fatalf("error %v, want ErrAsyncTimeout", err)
	}
	env = weir.NewEnv(weir.WithParallelism(1))
	got, err := weir.Collect(context.Background(), weir.AsyncWaitOrdered(weir.FromSlice(env, []int{1, 2, 3, 4}), never, 20*time.Millisecond,
		weir.WithAsyncTimeoutHandler(func(i int) ([]string, error) { return []string{fmt.Sprint("timeout ", i)}, nil })))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", "2", "timeout 3", "4"}; !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}

// A handler or predicate of the wrong type is a construction error.
func TestAsyncWaitOptionTypes(t *testing.T) {
	env := weir.NewEnv()
	id := func(_ context.Context, i int) ([]int, error) { return []int{i}, nil }
	s := weir.AsyncWait(weir.FromSlice(env, []int{1}), id, time.Second, weir.WithAsyncTimeoutHandler(func(string) ([]int, error) { return nil, nil }))
	if _, err := weir.Collect(context.Background(), s); !contains(err, "timeout handler") {
		t.Fatalf("error %v, want one about the timeout handler's type", err)
	}
	env = weir.NewEnv()
	s = weir.AsyncWait(weir.FromSlice(env, []int{1}), id, 0)
	if _, err := weir.Collect(context.Background(), s); !contains(err, "timeout") {
		t.Fatalf("error %v, want one about the timeout", err)
	}
}
