package weir_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

type reading struct {
	Sensor string
	TS     int64
	Value  int64
}

type windowSum struct {
	Sensor     string
	Start, End int64
	Sum, Count int64
}

// readings are ordered by time but locally shuffled by at most maxDelay.
func readings(seed uint64, n int, maxDelay int64) []reading {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]reading, n)
	for i := range out {
		out[i] = reading{Sensor: fmt.Sprintf("s%d", r.IntN(7)), TS: int64(i) * 10, Value: r.Int64N(100)}
	}
	// Shuffle within blocks so no element is later than maxDelay.
	block := int(maxDelay / 10)
	for i := 0; i+block <= len(out); i += block {
		r.Shuffle(block, func(a, b int) { out[i+a], out[i+b] = out[i+b], out[i+a] })
	}
	return out
}

// referenceWindows computes the window sums the engine must produce.
func referenceWindows(rs []reading, size, slide int64) []windowSum {
	acc := map[windowSum]windowSum{}
	for _, r := range rs {
		last := r.TS - r.TS%slide
		for start := last; start > r.TS-size; start -= slide {
			k := windowSum{Sensor: r.Sensor, Start: start, End: start + size}
			w := acc[k]
			w.Sensor, w.Start, w.End = k.Sensor, k.Start, k.End
			w.Sum += r.Value
			w.Count++
			acc[k] = w
		}
	}
	var out []windowSum
	for _, w := range acc {
		out = append(out, w)
	}
	sortWindows(out)
	return out
}

func sortWindows(ws []windowSum) {
	slices.SortFunc(ws, func(a, b windowSum) int {
		if a.Sensor != b.Sensor {
			if a.Sensor < b.Sensor {
				return -1
			}
			return 1
		}
		return int(a.Start - b.Start)
	})
}

type sumAgg struct{}

func (sumAgg) CreateAccumulator() windowSum { return windowSum{} }
func (sumAgg) Add(r reading, acc windowSum) (windowSum, error) {
	acc.Sum += r.Value
	acc.Count++
	return acc, nil
}
func (sumAgg) GetResult(acc windowSum) (windowSum, error) { return acc, nil }

func TestEventTimeWindowsMatchReference(t *testing.T) {
	const maxDelay = 200
	rs := readings(3, 20000, maxDelay)
	for _, tt := range []struct {
		name        string
		size, slide time.Duration
		assigner    weir.WindowAssigner
	}{
		{"tumbling", time.Second, time.Second, weir.TumblingEventTimeWindows(time.Second)},
		{"sliding", 3 * time.Second, time.Second, weir.SlidingEventTimeWindows(3*time.Second, time.Second)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := weir.NewEnv(weir.WithParallelism(3))
			// A short watermark interval makes windows fire during the run,
			// not only at the end of input.
			src := weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, rs).SetParallelism(1), weir.WatermarkStrategy[reading]{
				Timestamp: func(r reading) int64 { return r.TS }, OutOfOrderness: maxDelay * time.Millisecond, Interval: time.Millisecond,
			})
			keyed := weir.KeyBy(src, func(r reading) string { return r.Sensor })
			sums := weir.WindowAggregateWith(weir.Window(keyed, tt.assigner), weir.AggregateFunction[reading, windowSum, windowSum](sumAgg{}),
				func(k string, w weir.TimeWindow, s windowSum) (windowSum, error) {
					s.Sensor, s.Start, s.End = k, w.Start, w.End
					return s, nil
				})
			got, err := weir.Collect(context.Background(), sums)
			if err != nil {
				t.Fatal(err)
			}
			sortWindows(got)
			want := referenceWindows(rs, tt.size.Milliseconds(), tt.slide.Milliseconds())
			if !slices.Equal(got, want) {
				t.Fatalf("got %d windows, want %d; first got %v, first want %v", len(got), len(want), got[:min(3, len(got))], want[:3])
			}
		})
	}
}

func TestWindowReduceAndLateData(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1))
	// Element 3 arrives after the watermark passed its window (no allowed
	// out-of-orderness and a watermark per element).
	in := []reading{{"a", 100, 1}, {"a", 900, 2}, {"a", 1500, 4}, {"a", 200, 8}, {"a", 2500, 16}}
	src := weir.AssignTimestampsAndWatermarks(weir.FromIter(env, slices.Values(in)), weir.WatermarkStrategy[reading]{
		Timestamp: func(r reading) int64 { return r.TS }, PerElement: true,
	})
	late := weir.NewOutputTag[reading]("late")
	windowed := weir.Window(weir.KeyBy(src, func(r reading) string { return r.Sensor }), weir.TumblingEventTimeWindows(time.Second)).SideOutputLateData(late)
	sums := weir.WindowReduce(windowed, func(a, b reading) (reading, error) { return reading{a.Sensor, max(a.TS, b.TS), a.Value + b.Value}, nil })
	lateOnes := weir.SideOutput(sums, late)
	got, err := weir.Collect(context.Background(), weir.Union(
		weir.Map(sums, func(r reading) (string, error) { return fmt.Sprintf("window %d", r.Value), nil }),
		weir.Map(lateOnes, func(r reading) (string, error) { return fmt.Sprintf("late %d", r.TS), nil }),
	))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	// The watermark reached 1499 before the element at 200 arrived, so its
	// window [0, 1000) had fired: it goes to the side output.
	want := []string{"late 200", "window 16", "window 3", "window 4"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
