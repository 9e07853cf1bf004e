package weir_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/graph"
)

// Mistakes in a program are reported by Execute before anything runs; none
// panics.
func TestBuildErrors(t *testing.T) {
	type ptrKey struct{ P *int }
	tests := []struct {
		name  string
		build func(env *weir.Env) weir.DataStream[int]
		want  string
		is    error
	}{
		{"nil map function", func(env *weir.Env) weir.DataStream[int] {
			return weir.Map[int, int](weir.FromSlice(env, []int{1}), nil)
		}, "Map: nil function", nil},
		{"nil filter value", func(env *weir.Env) weir.DataStream[int] {
			var f weir.FilterFunction[int]
			return weir.FilterWith(weir.FromSlice(env, []int{1}), f)
		}, "Filter: nil function", nil},
		{"typed nil function value", func(env *weir.Env) weir.DataStream[int] {
			var f *mapper
			return weir.MapWith[int, int](weir.FromSlice(env, []int{1}), f)
		}, "Map: nil function", nil},
		{"pointer key", func(env *weir.Env) weir.DataStream[int] {
			ks := weir.KeyBy(weir.FromSlice(env, []int{1}), func(v int) *int { return &v })
			return weir.Reduce(ks, func(a, b int) (int, error) { return a, nil })
		}, "KeyBy", nil},
		{"struct key with a pointer", func(env *weir.Env) weir.DataStream[int] {
			ks := weir.KeyBy(weir.FromSlice(env, []int{1}), func(v int) ptrKey { return ptrKey{} })
			return weir.Reduce(ks, func(a, b int) (int, error) { return a, nil })
		}, "KeyBy", nil},
		{"interface key", func(env *weir.Env) weir.DataStream[int] {
			ks := weir.KeyBy(weir.FromSlice(env, []int{1}), func(v int) any { return v })
			return weir.Reduce(ks, func(a, b int) (int, error) { return a, nil })
		}, "KeyBy", nil},
		{"parallelism above max parallelism", func(env *weir.Env) weir.DataStream[int] {
			return weir.FromSlice(env, []int{1}).SetParallelism(8).SetMaxParallelism(4)
		}, "greater than max parallelism", graph.ErrParallelism},
		{"zero parallelism", func(env *weir.Env) weir.DataStream[int] {
			return weir.FromSlice(env, []int{1}).SetParallelism(0)
		}, "must be at least 1", nil},
		{"missing input file", func(env *weir.Env) weir.DataStream[int] {
			lines := weir.ReadTextFile(env, filepath.Join(t.TempDir(), "nope.txt"))
			return weir.Map(lines, func(string) (int, error) { return 0, nil })
		}, "nope.txt", os.ErrNotExist},
		{"iterator source in parallel", func(env *weir.Env) weir.DataStream[int] {
			return weir.FromIter(env, func(yield func(int) bool) {}).SetParallelism(2)
		}, "cannot run in parallel", graph.ErrParallelism},
		{"unbounded source in batch mode", func(env *weir.Env) weir.DataStream[int] {
			return weir.Generate(env, weir.Generator[int]{Fn: func(i int64) (int, error) { return 0, nil }})
		}, "batch mode needs bounded sources", nil},
		{"window slide above size", func(env *weir.Env) weir.DataStream[int] {
			ks := weir.KeyBy(weir.FromSlice(env, []int{1}), func(v int) int { return v })
			return weir.WindowReduce(weir.Window(ks, weir.SlidingEventTimeWindows(time.Second, time.Minute)), func(a, b int) (int, error) { return a, nil })
		}, "slide", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []weir.Option{weir.WithParallelism(2)}
			if strings.Contains(tt.name, "batch") {
				opts = append(opts, weir.WithMode(weir.Batch))
			}
			env := weir.NewEnv(opts...)
			s := tt.build(env)
			_, err := weir.Collect(context.Background(), s)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want errors.Is %v", err, tt.is)
			}
			if errors.Is(err, weir.ErrJobFailed) {
				t.Fatalf("err = %v: the job ran, the mistake should stop it before", err)
			}
		})
	}
}

func TestEmptyProgram(t *testing.T) {
	_, err := weir.NewEnv().Execute(context.Background(), "empty")
	if !errors.Is(err, graph.ErrEmpty) {
		t.Fatalf("err = %v", err)
	}
}

func TestInvalidOptions(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(4), weir.WithMaxParallelism(2))
	weir.Print(weir.FromSlice(env, []int{1}))
	if _, err := env.Execute(context.Background(), "bad"); err == nil || !strings.Contains(err.Error(), "greater than max parallelism") {
		t.Fatalf("err = %v", err)
	}
}

type mapper struct{}

func (*mapper) Map(v int) (int, error) { return v, nil }

// A failing user function fails the job with its error and the operator's
// name; every goroutine is gone afterwards (TestMain checks with goleak),
// and the functions of the failed job are closed but not finished.
func TestFailingFunctionFailsTheJob(t *testing.T) {
	boom := errors.New("boom")
	var mu sync.Mutex
	var calls []string
	record := func(s string) { mu.Lock(); calls = append(calls, s); mu.Unlock() }
	env := weir.NewEnv(weir.WithParallelism(2))
	src := weir.Generate(env, weir.Generator[int]{Fn: func(i int64) (int, error) { return int(i), nil }})
	failing := weir.MapWith[int, int](src, &hooked{record: record, failAt: 1000, err: boom}).Name("fragile")
	weir.AddSink(failing, func(int) error { return nil })
	_, err := env.Execute(context.Background(), "failing")
	if !errors.Is(err, weir.ErrJobFailed) || !errors.Is(err, boom) || !strings.Contains(err.Error(), `"fragile"`) {
		t.Fatalf("err = %v, want the function's error with the operator name", err)
	}
	mu.Lock()
	defer mu.Unlock()
	opens, closes := 0, 0
	for _, c := range calls {
		switch c {
		case "open":
			opens++
		case "close":
			closes++
		case "finish":
			t.Fatal("Finish called in a failed job")
		}
	}
	if opens != 2 || closes != 2 {
		t.Fatalf("calls = %v, want both subtasks opened and closed", calls)
	}
}

type hooked struct {
	record func(string)
	failAt int
	err    error
}

func (h *hooked) Open(*weir.RuntimeContext) error { h.record("open"); return nil }
func (h *hooked) Finish() error                   { h.record("finish"); return nil }
func (h *hooked) Close() error                    { h.record("close"); return nil }
func (h *hooked) Map(v int) (int, error) {
	if v == h.failAt {
		return 0, h.err
	}
	return v, nil
}

func TestFunctionHooksOnSuccess(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	record := func(s string) { mu.Lock(); calls = append(calls, s); mu.Unlock() }
	env := weir.NewEnv(weir.WithParallelism(1))
	weir.AddSink(weir.MapWith[int, int](weir.FromSlice(env, []int{1, 2}), &hooked{record: record, failAt: -1}), func(int) error { return nil })
	if _, err := env.Execute(context.Background(), "hooks"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(calls, " "); got != "open finish close" {
		t.Fatalf("hooks = %q", got)
	}
}

func TestCancelThroughContext(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	src := weir.Generate(env, weir.Generator[int]{Fn: func(i int64) (int, error) { return int(i), nil }})
	weir.AddSink(weir.KeyBy(src, func(v int) int { return v % 10 }).DataStream, func(int) error { return nil })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := env.Execute(ctx, "endless")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's error", err)
	}
}

func TestAccumulatorsAndMetrics(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	in := weir.FromSlice(env, []int{1, 2, 3, 4, 5, 6, 7})
	evens := weir.FilterWith(in, &countingFilter{})
	weir.AddSink(evens.Rebalance(), func(int) error { return nil })
	res, err := env.Execute(context.Background(), "metrics")
	if err != nil {
		t.Fatal(err)
	}
	if res.Accumulators["seen"] != 7 {
		t.Fatalf("accumulators = %v", res.Accumulators)
	}
	if len(res.Vertices) != 2 || res.Vertices[0].RecordsOut != 3 || res.Vertices[1].RecordsIn != 3 {
		t.Fatalf("vertices = %+v", res.Vertices)
	}
}

type countingFilter struct{ seen *weir.Counter }

func (f *countingFilter) Open(rc *weir.RuntimeContext) error {
	f.seen = rc.Counter("seen")
	return nil
}

func (f *countingFilter) Filter(v int) (bool, error) {
	f.seen.Add(1)
	return v%2 == 0, nil
}

// A job with a restart strategy survives a failure; without checkpoints it
// starts over, so the sink sees the records of both attempts.
func TestRestartAfterFailure(t *testing.T) {
	var failed atomic.Bool
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithRestartStrategy(weir.FixedDelayRestart(2, 10*time.Millisecond)))
	in := weir.FromSlice(env, []int{1, 2, 3, 4, 5, 6, 7, 8})
	out := weir.Map(in, func(v int) (int, error) {
		if v == 5 && failed.CompareAndSwap(false, true) {
			return 0, errors.New("transient")
		}
		return v, nil
	})
	got, err := weir.Collect(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, v := range got {
		seen[v] = true
	}
	if len(seen) != 8 {
		t.Fatalf("after the restart the job produced %v, want every element", got)
	}
}

func TestRestartsExhausted(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1), weir.WithRestartStrategy(weir.FixedDelayRestart(2, time.Millisecond)))
	var attempts atomic.Int32
	weir.AddSink(weir.FromSlice(env, []int{1}), func(int) error { attempts.Add(1); return errors.New("permanent") })
	res, err := env.Execute(context.Background(), "doomed")
	if !errors.Is(err, weir.ErrJobFailed) || !strings.Contains(err.Error(), "restarts exhausted") || !strings.Contains(err.Error(), "permanent") {
		t.Fatalf("err = %v", err)
	}
	if attempts.Load() != 3 || res.Restarts != 2 {
		t.Fatalf("%d attempts, %d restarts; want 3 and 2", attempts.Load(), res.Restarts)
	}
}

// Failures that a restart meets again fail the job at once, whatever the
// restart strategy: a file that does not exist, a permission denied, an
// error the user marked with ErrUnrecoverable. A full disk is retried.
func TestUnrecoverableFailuresDoNotRestart(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		name     string
		err      func() error
		restarts int
	}{
		{"missing file", func() error { _, err := os.Open(missing); return err }, 0},
		{"permission denied", func() error { return &fs.PathError{Op: "open", Path: "/out", Err: syscall.EACCES} }, 0},
		{"marked", func() error { return fmt.Errorf("bad record: %w", weir.ErrUnrecoverable) }, 0},
		{"disk full", func() error { return &fs.PathError{Op: "write", Path: "/out/part-0", Err: syscall.ENOSPC} }, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := weir.NewEnv(weir.WithParallelism(1), weir.WithRestartStrategy(weir.FixedDelayRestart(3, time.Millisecond)))
			var attempts atomic.Int32
			weir.AddSink(weir.FromSlice(env, []int{1}), func(int) error { attempts.Add(1); return tt.err() })
			res, err := env.Execute(context.Background(), "doomed")
			if !errors.Is(err, weir.ErrJobFailed) || res.Restarts != tt.restarts || int(attempts.Load()) != tt.restarts+1 {
				t.Fatalf("err = %v after %d restarts and %d attempts; want the job failed after %d restarts", err, res.Restarts, attempts.Load(), tt.restarts)
			}
		})
	}
}

// A panicking user function fails the job with the panic, not the process.
func TestPanicFailsTheJob(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	var nilMap map[string]int
	out := weir.Map(weir.FromSlice(env, []int{1, 2, 3}), func(v int) (int, error) {
		nilMap["x"] = v // assignment to a nil map panics
		return v, nil
	})
	_, err := weir.Collect(context.Background(), out)
	if !errors.Is(err, weir.ErrJobFailed) || !strings.Contains(err.Error(), "panic: assignment to entry in nil map") {
		t.Fatalf("err = %v", err)
	}
}

// Operators called directly by their chained predecessor still name
// themselves in errors: a map, a flat map, a filter and a sink, each
// failing in turn.
func TestChainedErrorsNameTheOperator(t *testing.T) {
	boom := errors.New("boom")
	for _, failing := range []string{"m", "fm", "f", "s"} {
		env := weir.NewEnv(weir.WithParallelism(1))
		fail := func(name string) error {
			if name == failing {
				return boom
			}
			return nil
		}
		m := weir.Map(weir.FromSlice(env, []int{1, 2}), func(v int) (int, error) { return v, fail("m") }).Name("m")
		fm := weir.FlatMap(m, func(v int, out weir.Collector[int]) error { out.Collect(v); return fail("fm") }).Name("fm")
		f := weir.Filter(fm, func(int) (bool, error) { return true, fail("f") }).Name("f")
		weir.AddSink(f, func(int) error { return fail("s") }).Name("s")
		_, err := env.Execute(context.Background(), "chained")
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), fmt.Sprintf("operator %q", failing)) {
			t.Errorf("failing %s: err = %v", failing, err)
		}
	}
}
