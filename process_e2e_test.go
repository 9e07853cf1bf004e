package weir_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

type event struct {
	Key string
	TS  int64
}

type fired struct {
	Key    string
	At     int64
	Count  int64
	Domain string
}

// timerCounter counts elements per key in ValueState and registers an
// event-time timer 100ms after each element; OnTimer reports the count.
type timerCounter struct {
	count weir.ValueState[int64]
}

func (f *timerCounter) Open(rc *weir.KeyedRuntimeContext[string]) error {
	var err error
	f.count, err = weir.GetValueState[int64](rc, "count")
	return err
}

func (f *timerCounter) ProcessElement(ctx *weir.KeyedContext[string, fired], e event) error {
	n, _ := f.count.Value()
	f.count.Update(n + 1)
	ctx.TimerService().RegisterEventTimeTimer(e.TS + 100)
	return nil
}

func (f *timerCounter) OnTimer(ctx *weir.KeyedContext[string, fired], ts int64) error {
	n, _ := f.count.Value()
	ctx.Collect(fired{Key: ctx.Key(), At: ts, Count: n, Domain: ctx.TimeDomain().String()})
	return nil
}

func TestEventTimeTimersFireInOrder(t *testing.T) {
	var in []event
	for i := 0; i < 300; i++ {
		in = append(in, event{Key: fmt.Sprintf("k%d", i%5), TS: int64(i * 7)})
	}
	env := weir.NewEnv(weir.WithParallelism(2))
	src := weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, in).SetParallelism(1),
		weir.MonotonousTimestamps(func(e event) int64 { return e.TS }))
	out := weir.Process(weir.KeyBy(src, func(e event) string { return e.Key }), weir.KeyedProcessFunction[string, event, fired](&timerCounter{}))
	got, err := weir.Collect(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	// One timer per element (distinct times per key), each fired once, in
	// increasing time per key, with the count of elements up to then at
	// least as large as the elements before it.
	if len(got) != len(in) {
		t.Fatalf("%d timers fired, want %d", len(got), len(in))
	}
	last := map[string]fired{}
	for _, f := range got {
		if f.Domain != "event time" {
			t.Fatalf("timer domain %q", f.Domain)
		}
		if prev, ok := last[f.Key]; ok && (f.At <= prev.At || f.Count < prev.Count) {
			t.Fatalf("key %s: timer %d after %d, count %d after %d", f.Key, f.At, prev.At, f.Count, prev.Count)
		}
		// Elements of this key with TS <= At-100 were counted.
		var atLeast int64
		for _, e := range in {
			if e.Key == f.Key && e.TS <= f.At-100 {
				atLeast++
			}
		}
		if f.Count < atLeast {
			t.Fatalf("key %s: timer at %d saw count %d, but %d elements precede it", f.Key, f.At, f.Count, atLeast)
		}
		last[f.Key] = f
	}
}

// quietDetector emits a key once no element arrived for it for quietMillis of
// processing time (long enough that a busy machine does not stall a key
// that keeps receiving elements).
const quietMillis = 1000

type quietDetector struct {
	deadline weir.ValueState[int64]
}

func (q *quietDetector) Open(rc *weir.KeyedRuntimeContext[string]) error {
	var err error
	q.deadline, err = weir.GetValueState[int64](rc, "deadline")
	return err
}

func (q *quietDetector) ProcessElement(ctx *weir.KeyedContext[string, fired], e event) error {
	ts := ctx.TimerService()
	at := ts.CurrentProcessingTime() + quietMillis
	if old, ok := q.deadline.Value(); ok {
		ts.DeleteProcessingTimeTimer(old)
	}
	q.deadline.Update(at)
	ts.RegisterProcessingTimeTimer(at)
	return nil
}

func (q *quietDetector) OnTimer(ctx *weir.KeyedContext[string, fired], ts int64) error {
	ctx.Collect(fired{Key: ctx.Key(), At: ts, Domain: ctx.TimeDomain().String()})
	q.deadline.Clear()
	return nil
}

func TestProcessingTimeTimers(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	// An unbounded generator of two keys, slowed down so the job runs long
	// enough for processing time to pass; key "b" stops after 5 elements.
	src := weir.Generate(env, weir.Generator[event]{
		Fn: func(i int64) (event, error) {
			if i < 10 && i%2 == 1 {
				return event{Key: "b"}, nil
			}
			return event{Key: "a"}, nil
		},
		RatePerSecond: 2000,
	}).SetParallelism(1)
	out := weir.Process(weir.KeyBy(src, func(e event) string { return e.Key }), weir.KeyedProcessFunction[string, event, fired](&quietDetector{}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := weir.CollectN(ctx, out, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Key != "b" || got[0].Domain != "processing time" {
		t.Fatalf("got %v, want the quiet key b once, in processing time", got)
	}
}

func TestSideOutputs(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	odd := weir.NewOutputTag[string]("odd")
	in := weir.FromSlice(env, []int{1, 2, 3, 4, 5, 6})
	evens := weir.Process(weir.KeyBy(in, func(v int) int { return v % 3 }), processFunc[int, int, int](func(ctx *weir.KeyedContext[int, int], v int) error {
		if v%2 == 0 {
			ctx.Collect(v)
		} else {
			weir.Output(ctx, odd, fmt.Sprint("odd ", v))
		}
		return nil
	}))
	odds := weir.SideOutput(evens, odd)
	all := weir.Union(weir.Map(evens, func(v int) (string, error) { return fmt.Sprint("even ", v), nil }), odds)
	got, err := weir.Collect(context.Background(), all)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"even 2", "even 4", "even 6", "odd 1", "odd 3", "odd 5"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// processFunc adapts a func to KeyedProcessFunction in tests.
type processFunc[K comparable, T, R any] func(ctx *weir.KeyedContext[K, R], v T) error

func (f processFunc[K, T, R]) ProcessElement(ctx *weir.KeyedContext[K, R], v T) error {
	return f(ctx, v)
}

func TestStateRegisteredTwiceWithAnotherTypeFails(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1))
	out := weir.Process(weir.KeyBy(weir.FromSlice(env, []int{1}), func(v int) int { return v }),
		weir.KeyedProcessFunction[int, int, int](&badState{}))
	_, err := weir.Collect(context.Background(), out)
	if !errors.Is(err, weir.ErrJobFailed) || !contains(err, `"x"`) {
		t.Fatalf("err = %v", err)
	}
}

type badState struct{}

func (badState) Open(rc *weir.KeyedRuntimeContext[int]) error {
	if _, err := weir.GetValueState[int](rc, "x"); err != nil {
		return err
	}
	_, err := weir.GetListState[string](rc, "x")
	return err
}

func (badState) ProcessElement(*weir.KeyedContext[int, int], int) error { return nil }
