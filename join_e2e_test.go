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

type side struct {
	Key, N int
	TS     int64
}

func sides(seed uint64, n int) (left, right []side) {
	r := rand.New(rand.NewPCG(seed, 3))
	for i := 0; i < n; i++ {
		left = append(left, side{Key: r.IntN(20), N: i, TS: int64(i) * 10})
		right = append(right, side{Key: r.IntN(20), N: -i, TS: int64(i)*10 + 5})
	}
	return left, right
}

func TestJoinMatchesReference(t *testing.T) {
	left, right := sides(1, 300)
	var want []string
	for _, l := range left {
		for _, r := range right {
			if l.Key == r.Key {
				want = append(want, fmt.Sprintf("%d:%d:%d", l.Key, l.N, r.N))
			}
		}
	}
	slices.Sort(want)
	env := weir.NewEnv(weir.WithParallelism(3))
	l := weir.KeyBy(weir.FromSlice(env, left), func(s side) int { return s.Key })
	r := weir.KeyBy(weir.FromSlice(env, right), func(s side) int { return s.Key })
	joined := weir.Join(l, r, func(a, b side) (string, error) { return fmt.Sprintf("%d:%d:%d", a.Key, a.N, b.N), nil })
	got, err := weir.Collect(context.Background(), joined)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("%d joined, want %d", len(got), len(want))
	}
}

func TestWindowJoinMatchesReference(t *testing.T) {
	left, right := sides(2, 1000)
	const size = 200
	var want []string
	for _, l := range left {
		for _, r := range right {
			if l.Key == r.Key && l.TS/size == r.TS/size {
				want = append(want, fmt.Sprintf("%d:%d:%d@%d", l.Key, l.N, r.N, l.TS/size*size+size-1))
			}
		}
	}
	slices.Sort(want)
	env := weir.NewEnv(weir.WithParallelism(2))
	ts := func(s side) int64 { return s.TS }
	l := weir.KeyBy(weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, left).SetParallelism(1), weir.MonotonousTimestamps(ts)), func(s side) int { return s.Key })
	r := weir.KeyBy(weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, right).SetParallelism(1), weir.MonotonousTimestamps(ts)), func(s side) int { return s.Key })
	joined := weir.WindowJoin(l, r, weir.TumblingEventTimeWindows(size*time.Millisecond), func(a, b side) (side, error) {
		return side{Key: a.Key, N: a.N*100000 + (-b.N)}, nil
	})
	stamped := weir.Process(weir.KeyBy(joined, func(s side) int { return s.Key }), processFunc[int, side, string](func(ctx *weir.KeyedContext[int, string], s side) error {
		at, _ := ctx.Timestamp()
		ctx.Collect(fmt.Sprintf("%d:%d:%d@%d", s.Key, s.N/100000, -(s.N % 100000), at))
		return nil
	}))
	got, err := weir.Collect(context.Background(), stamped)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("%d joined, want %d; first %v vs %v", len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
	}
}
