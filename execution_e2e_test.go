package weir_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/graph"
)

// Each execution of an Env runs the transformations that lead to the sinks
// added since the previous execution, once, and no others: two Collects
// over different downstreams of one source run the shared upstream map
// once per execution, whatever way the graph is chained or split.
func TestTwoCollectsRunTheirUpstreamOncePerExecution(t *testing.T) {
	tests := []struct {
		name string
		opts []weir.Option
	}{
		{"chained", []weir.Option{weir.WithParallelism(1)}},
		{"parallel unchained", []weir.Option{weir.WithParallelism(2), weir.WithoutChaining()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := weir.NewEnv(tt.opts...)
			var shared, tens, odds seenCounter
			src := weir.FromSlice(env, []int{1, 2, 3})
			both := weir.Map(src, shared.see)
			first := weir.Map(both, tens.see)
			first = weir.Map(first, func(v int) (int, error) { return v * 10, nil })
			second := weir.Filter(weir.Map(both, odds.see), func(v int) (bool, error) { return v%2 == 1, nil })

			executions := []struct {
				out                weir.DataStream[int]
				want               []int
				shared, tens, odds int64 // records seen by each map so far
			}{
				{first, []int{10, 20, 30}, 3, 3, 0},
				{second, []int{1, 3}, 6, 3, 3},
			}
			for i, ex := range executions {
				got, err := weir.Collect(context.Background(), ex.out)
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				if !slices.Equal(got, ex.want) {
					t.Fatalf("Collect %d = %v, want %v", i+1, got, ex.want)
				}
				if s, f, o := shared.Load(), tens.Load(), odds.Load(); s != ex.shared || f != ex.tens || o != ex.odds {
					t.Fatalf("after Collect %d the maps saw shared=%d first=%d second=%d records, want %d, %d, %d",
						i+1, s, f, o, ex.shared, ex.tens, ex.odds)
				}
			}
		})
	}
}

// seenCounter is an identity map function that counts the records it saw.
type seenCounter struct{ atomic.Int64 }

func (c *seenCounter) see(v int) (int, error) { c.Add(1); return v, nil }

// A sink runs in the execution it was added before and in no later one; a
// stream created before an execution but not leading to its sinks does not
// run in it, and can be used in a later execution.
func TestExecutionForgetsItsSinks(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	var sunk, filtered atomic.Int64
	src := weir.FromSlice(env, []int{1, 2, 3, 4})
	// Created now, used only by the second execution.
	evens := weir.Filter(src, func(v int) (bool, error) { filtered.Add(1); return v%2 == 0, nil })
	weir.AddSink(src, func(int) error { sunk.Add(1); return nil })
	if _, err := env.Execute(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	if s, f := sunk.Load(), filtered.Load(); s != 4 || f != 0 {
		t.Fatalf("first execution: sink got %d records, filter saw %d; want 4 and 0", s, f)
	}

	got, err := weir.Collect(context.Background(), evens)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []int{2, 4}; !slices.Equal(got, want) {
		t.Fatalf("Collect = %v, want %v", got, want)
	}
	if s, f := sunk.Load(), filtered.Load(); s != 4 || f != 4 {
		t.Fatalf("second execution: sink got %d records in all, filter saw %d; want 4 (not run again) and 4", s, f)
	}

	// Everything was executed: nothing is left to run.
	if _, err := env.Execute(context.Background(), "third"); !errors.Is(err, graph.ErrEmpty) {
		t.Fatalf("third execution err = %v, want graph.ErrEmpty", err)
	}
}

// The plan of an Env (JobGraph, `weir run --plan`) shows the next
// execution without consuming its sinks; once it ran, nothing is left.
func TestJobGraphShowsTheNextExecution(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1), weir.WithStdout(io.Discard))
	src := weir.FromSlice(env, []int{1, 2})
	weir.Print(weir.Map(src, func(v int) (int, error) { return v, nil }).Name("first-map"))
	for range 2 {
		plan, err := env.JobGraph()
		if err != nil {
			t.Fatal(err)
		}
		if want := "FromSlice -> first-map -> Print parallelism=1\n"; plan != want {
			t.Fatalf("plan = %q, want %q", plan, want)
		}
	}
	if _, err := env.Execute(context.Background(), "print"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.JobGraph(); !errors.Is(err, graph.ErrEmpty) {
		t.Fatalf("plan after the execution: err = %v, want graph.ErrEmpty", err)
	}
}

// Later executions reuse streams of earlier ones through side outputs,
// unions and connected streams: each takes exactly the upstream its sinks
// need.
func TestLaterExecutionsReuseEarlierStreams(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	var processed atomic.Int64
	odd := weir.NewOutputTag[int]("odd")
	in := weir.FromSlice(env, []int{1, 2, 3, 4, 5, 6})
	evens := weir.Process(weir.KeyBy(in, func(v int) int { return v % 3 }), processFunc[int, int, int](func(ctx *weir.KeyedContext[int, int], v int) error {
		processed.Add(1)
		if v%2 == 0 {
			ctx.Collect(v)
		} else {
			weir.Output(ctx, odd, v)
		}
		return nil
	}))
	odds := weir.SideOutput(evens, odd)
	steps := []struct {
		name string
		out  weir.DataStream[string]
		want []string
	}{
		{"side output alone", weir.Map(odds, func(v int) (string, error) { return fmt.Sprint("odd ", v), nil }),
			[]string{"odd 1", "odd 3", "odd 5"}},
		{"main output alone", weir.Map(evens, func(v int) (string, error) { return fmt.Sprint("even ", v), nil }),
			[]string{"even 2", "even 4", "even 6"}},
		{"union with a new source", weir.Union(
			weir.Map(odds, func(v int) (string, error) { return fmt.Sprint("odd ", v), nil }),
			weir.FromSlice(env, []string{"new"})),
			[]string{"new", "odd 1", "odd 3", "odd 5"}},
		{"joined with a new source", weir.Join(
			weir.KeyBy(evens, func(v int) int { return v }),
			weir.KeyBy(weir.FromSlice(env, []int{4, 6, 8}), func(v int) int { return v }),
			func(a, b int) (string, error) { return fmt.Sprint(a, "=", b), nil }),
			[]string{"4=4", "6=6"}},
	}
	for _, st := range steps {
		processed.Store(0)
		got, err := weir.Collect(context.Background(), st.out)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		slices.Sort(got)
		if !slices.Equal(got, st.want) {
			t.Fatalf("%s: got %v, want %v", st.name, got, st.want)
		}
		if n := processed.Load(); n != 6 {
			t.Fatalf("%s: the process function ran on %d records, want 6", st.name, n)
		}
	}
}

// An execution forgets its sinks even when its job cannot start, and
// CollectN of nothing adds none: neither leaves a sink for the next
// execution to run.
func TestExecutionsThatRunNothingLeaveNoSink(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1), weir.WithMode(weir.Batch))
	endless := weir.Generate(env, weir.Generator[int]{Fn: func(i int64) (int, error) { return int(i), nil }})
	if _, err := weir.Collect(context.Background(), endless); !contains(err, "batch mode needs bounded sources") {
		t.Fatalf("Collect of an unbounded source in batch mode: err = %v", err)
	}
	var sunk atomic.Int64
	bounded := weir.FromSlice(env, []int{1, 2})
	weir.AddSink(bounded, func(int) error { sunk.Add(1); return nil })
	got, err := weir.Collect(context.Background(), bounded)
	if err != nil {
		t.Fatalf("the failed Collect's sink stayed: %v", err)
	}
	if !slices.Equal(got, []int{1, 2}) || sunk.Load() != 2 {
		t.Fatalf("Collect = %v with the sink run %d times, want [1 2] and 2", got, sunk.Load())
	}

	if got, err := weir.CollectN(context.Background(), bounded, 0); err != nil || len(got) != 0 {
		t.Fatalf("CollectN of 0 = %v, %v", got, err)
	}
	if _, err := env.Execute(context.Background(), "nothing"); !errors.Is(err, graph.ErrEmpty) {
		t.Fatalf("after CollectN of 0: err = %v, want graph.ErrEmpty", err)
	}
}
