package weir_test

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// rangeTimestamp is the timestamp of the rangeReader element "ID:i": i*100
// ms.
func rangeTimestamp(v string) int64 {
	i, err := strconv.ParseInt(v[strings.IndexByte(v, ':')+1:], 10, 64)
	if err != nil {
		panic(err) // the test's own elements
	}
	return i * 100
}

// Idleness in AssignTimestampsAndWatermarks (Flink's withIdleness): of two
// source subtasks, subtask 0 reads split "a" (timestamps 0, 100, 200 ms,
// ... without end) and subtask 1 reads split "q", which emits nothing and
// never ends. Subtask 1's assigner announces IDLE after 20 ms without an
// element, so the window operator no longer waits for it and the window
// [0, 500) fires while the job runs. Without idleness subtask 1 would hold
// the watermark at its minimum forever.
func TestAssignerIdlenessReleasesWindow(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	s := weir.FromSplits(env, weir.SplitSource[string, rangeSplit]{
		Unbounded: true,
		Splits: func(int) ([]rangeSplit, error) {
			return []rangeSplit{{ID: "a", End: math.MaxInt64}, {ID: "q", End: -1}}, nil
		},
		NewSourceReader: func(ctx weir.ReaderContext[string]) (weir.SourceReader[string, rangeSplit], error) {
			return &rangeReader{ctx: ctx, read: new(atomic.Int64)}, nil
		},
	})
	strategy := weir.MonotonousTimestamps(rangeTimestamp).WithIdleness(20 * time.Millisecond)
	strategy.Interval = 5 * time.Millisecond
	s = weir.AssignTimestampsAndWatermarks(s, strategy)
	counts := weir.WindowReduce(weir.Window(weir.KeyBy(weir.Map(s, func(string) (int, error) {
		return 1, nil
	}), func(int) int { return 0 }), weir.TumblingEventTimeWindows(500*time.Millisecond)),
		func(a, b int) (int, error) { return a + b, nil })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got, err := weir.CollectN(ctx, counts, 1)
	if err != nil && !strings.Contains(err.Error(), "collected") {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != 5 {
		t.Fatalf("window results %v, want [5] (elements 0..400 ms) while the job runs", got)
	}
}

// A negative idleness is refused with a clear error.
func TestAssignerNegativeIdleness(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1))
	s := weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, []string{"a:1"}),
		weir.MonotonousTimestamps(rangeTimestamp).WithIdleness(-time.Second))
	_, err := weir.Collect(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "negative duration") {
		t.Fatalf("err %v, want a negative duration error", err)
	}
}
