package weir_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// fillSource is a split source of the ints 0..n-1 per split, read with
// Read or, when the operators chained to it take batches, Fill; fills
// counts the Fill calls, and Fill fails with failAt's element when it is
// reached (never when negative).
func fillSource(env *weir.Env, splits int, n, failAt int64, fills *atomic.Int64) weir.DataStream[int64] {
	return weir.FromSplits(env, weir.SplitSource[int64, intsSplit]{
		Name:   "ints",
		Splits: func(int) ([]intsSplit, error) { return make([]intsSplit, splits), nil },
		Read: func(s *intsSplit, budget int, emit func(int64) error) (bool, error) {
			for ; budget > 0 && s.Next < n; budget-- {
				if err := emit(s.Next); err != nil {
					return false, err
				}
				s.Next++
			}
			return s.Next >= n, nil
		},
		Fill: func(s *intsSplit, buf []int64) (int, bool, error) {
			fills.Add(1)
			k := 0
			for ; k < len(buf) && s.Next < n; k++ {
				if s.Next == failAt {
					return k, false, errors.New("element failAt")
				}
				buf[k] = s.Next
				s.Next++
			}
			return k, s.Next >= n, nil
		},
	})
}

// A source with Fill gives, through the operators chained to it, the
// elements its Read gives, and the engine calls Fill.
func TestSplitSourceFill(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	var fills atomic.Int64
	doubled := weir.Map(fillSource(env, 3, 2000, -1, &fills), func(v int64) (int64, error) { return 2 * v, nil })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got, err := weir.Collect(ctx, doubled)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for range 3 {
		for v := range int64(2000) {
			want = append(want, 2*v)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("got %d elements, want the %d of three splits of 0..1999, doubled", len(got), len(want))
	}
	if fills.Load() == 0 {
		t.Fatal("Fill was never called: the test did not test it")
	}
}

// An error from Fill fails the job with it.
func TestSplitSourceFillError(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1))
	var fills atomic.Int64
	weir.Print(weir.Map(fillSource(env, 1, 2000, 700, &fills), func(v int64) (int64, error) { return v, nil }))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := env.Execute(ctx, "fill-error")
	if err == nil || !strings.Contains(err.Error(), "element failAt") {
		t.Fatalf("Execute = %v, want the error of Fill", err)
	}
}

// Fill goes with Read only: with NewReader the job fails before it runs
// and says why.
func TestSplitSourceFillNeedsRead(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1))
	s := weir.FromSplits(env, weir.SplitSource[int64, intsSplit]{
		Splits:    func(int) ([]intsSplit, error) { return []intsSplit{{}}, nil },
		NewReader: func() weir.SplitReader[int64, intsSplit] { return nil },
		Fill:      func(*intsSplit, []int64) (int, bool, error) { return 0, true, nil },
	})
	weir.Print(s)
	_, err := env.Execute(context.Background(), "fill-with-new-reader")
	if err == nil || !strings.Contains(err.Error(), "Fill goes with Read") {
		t.Fatalf("Execute = %v, want an error about Fill", err)
	}
}
