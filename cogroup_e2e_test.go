package weir_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// A coGroup sees every key and window in which either stream has
// elements, with both sides' elements, also when one side is empty.
func TestWindowCoGroupGroups(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	strategy := weir.WatermarkStrategy[stamped]{Timestamp: func(s stamped) int64 { return s.TS }, OutOfOrderness: time.Hour}
	key := func(s stamped) string { return s.Key }
	a := weir.KeyBy(weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, []stamped{{"x", 10}, {"x", 990}, {"x", 1500}, {"y", 20}}), strategy), key)
	b := weir.KeyBy(weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, []stamped{{"x", 500}, {"y", 2100}, {"y", 2200}}), strategy), key)
	grouped := weir.WindowCoGroup(a, b, weir.TumblingEventTimeWindows(time.Second),
		func(k string, w weir.TimeWindow, as, bs []stamped, out weir.Collector[string]) error {
			out.Collect(fmt.Sprintf("%s %v a=%d b=%d", k, w, len(as), len(bs)))
			return nil
		})
	got, err := weir.Collect(context.Background(), grouped)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"x [0, 1000) a=2 b=1", "x [1000, 2000) a=1 b=0", "y [0, 1000) a=1 b=0", "y [2000, 3000) a=0 b=2"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
