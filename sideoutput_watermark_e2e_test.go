package weir_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/weir-engine/weir"
)

// splitAtWatermark holds its elements and, at each watermark, emits the
// even ones on the main output and the odd ones on a side output.
type splitAtWatermark struct {
	held []int64
}

var heldOddTag = weir.NewOutputTag[int64]("odd-at-watermark")

func (s *splitAtWatermark) ProcessElement(_ *weir.ProcessContext[int64], v int64) error {
	s.held = append(s.held, v)
	return nil
}

func (s *splitAtWatermark) OnWatermark(ctx *weir.ProcessContext[int64], _ int64) error {
	for _, v := range s.held {
		if v%2 == 0 {
			ctx.CollectWithTimestamp(v, v)
		} else {
			weir.Output(ctx, heldOddTag, v)
		}
	}
	s.held = s.held[:0]
	return nil
}

// sumBoth adds up the elements of both inputs per key and emits the sums
// at the end of input.
type sumBoth struct {
	sum weir.ValueState[int64]
}

func (f *sumBoth) Open(rc *weir.KeyedRuntimeContext[int64]) (err error) {
	f.sum, err = weir.GetValueState[int64](rc, "sum")
	return err
}

func (f *sumBoth) add(ctx *weir.KeyedContext[int64, string], v int64) error {
	n, ok := f.sum.Value()
	if !ok {
		ctx.TimerService().RegisterEventTimeTimer(1 << 62)
	}
	f.sum.Update(n + v)
	return nil
}

func (f *sumBoth) ProcessElement1(ctx *weir.KeyedContext[int64, string], v int64) error {
	return f.add(ctx, v)
}

func (f *sumBoth) ProcessElement2(ctx *weir.KeyedContext[int64, string], v int64) error {
	return f.add(ctx, v)
}

func (f *sumBoth) OnTimer(ctx *weir.KeyedContext[int64, string], _ int64) error {
	n, _ := f.sum.Value()
	ctx.Collect(fmt.Sprint(ctx.Key(), " ", n))
	return nil
}

// A stage that emits on its main and a side output when the final
// watermark comes (the end of a bounded input), both read by one
// co-process, delivers every element before the end of data on both
// inputs: the side output's buffered records are flushed with the main
// output's, before EndOfData.
func TestSideOutputAtFinalWatermarkPrecedesEndOfData(t *testing.T) {
	for _, p := range []int{1, 2, 3} {
		t.Run(fmt.Sprint("p", p), func(t *testing.T) {
			for run := range 5 {
				const n = 20000
				env := weir.NewEnv(weir.WithParallelism(p))
				in := weir.Generate(env, weir.Generator[int64]{Fn: func(i int64) (int64, error) { return i, nil }, Count: n})
				in = weir.AssignTimestampsAndWatermarks(in, weir.MonotonousTimestamps(func(v int64) int64 { return v }))
				evens := weir.ProcessStream(in, weir.ProcessFunction[int64, int64](&splitAtWatermark{}))
				odds := weir.SideOutput(evens, heldOddTag)
				key := func(v int64) int64 { return v % 7 }
				sums := weir.CoProcess(weir.Connect(weir.KeyBy(evens, key), weir.KeyBy(odds, key)),
					weir.KeyedCoProcessFunction[int64, int64, int64, string](&sumBoth{}))
				got, err := weir.Collect(context.Background(), sums)
				if err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				want := map[string]bool{}
				for k := int64(0); k < 7; k++ {
					s := int64(0)
					for v := k; v < n; v += 7 {
						s += v
					}
					want[fmt.Sprint(k, " ", s)] = true
				}
				if len(got) != len(want) {
					t.Fatalf("run %d: got %d sums %v, want %d", run, len(got), got, len(want))
				}
				for _, g := range got {
					if !want[g] {
						t.Fatalf("run %d: got %q, not among %v", run, g, want)
					}
				}
			}
		})
	}
}
