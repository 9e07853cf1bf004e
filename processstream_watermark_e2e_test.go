package weir_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/weir-engine/weir"
)

// holdUntilWatermark holds its elements and emits them when a watermark
// arrives, timestamped with that watermark: a local pre-aggregation in its
// simplest form. Emitted after the watermark, they would be late.
type holdUntilWatermark struct {
	held []int64
}

func (f *holdUntilWatermark) ProcessElement(ctx *weir.ProcessContext[int64], v int64) error {
	f.held = append(f.held, v)
	return nil
}

func (f *holdUntilWatermark) OnWatermark(ctx *weir.ProcessContext[int64], wm int64) error {
	for _, v := range f.held {
		ctx.CollectWithTimestamp(v, wm)
	}
	f.held = f.held[:0]
	return nil
}

// notLate fails on an element whose timestamp is at or behind the
// watermark its subtask has seen, so it proves that what OnWatermark emits
// goes before the watermark.
type notLate struct{}

func (notLate) ProcessElement(ctx *weir.ProcessContext[int64], v int64) error {
	ts, _ := ctx.Timestamp()
	if wm := ctx.TimerService().CurrentWatermark(); ts <= wm {
		return fmt.Errorf("element %d at %d arrived after watermark %d", v, ts, wm)
	}
	ctx.Collect(v)
	return nil
}

// A WatermarkListener emits before the watermark goes on, across an
// exchange too, and its last emission (at the end of input) is not lost;
// watermarks come after every element, so every element is held and
// released by one.
func TestWatermarkListenerEmitsBeforeTheWatermark(t *testing.T) {
	for _, p := range []int{1, 3} {
		t.Run(fmt.Sprint("p", p), func(t *testing.T) {
			env := weir.NewEnv(weir.WithParallelism(p))
			ints := weir.Generate(env, weir.Generator[int64]{Fn: func(i int64) (int64, error) { return i + 1, nil }, Count: 2000})
			w := weir.MonotonousTimestamps(func(v int64) int64 { return v })
			w.PerElement = true
			held := weir.ProcessStream(weir.AssignTimestampsAndWatermarks(ints, w),
				weir.ProcessFunction[int64, int64](&holdUntilWatermark{}))
			checked := weir.ProcessStream(held.Rebalance(), weir.ProcessFunction[int64, int64](notLate{}))
			got, err := weir.Collect(context.Background(), checked)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if len(got) != 2000 || got[0] != 1 || got[1999] != 2000 {
				t.Fatalf("%d elements, want 1..2000", len(got))
			}
		})
	}
}
