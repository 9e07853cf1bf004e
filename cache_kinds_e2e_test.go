package weir_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/weir-engine/weir"
)

// A side output, a keyed stream and a cache read at another parallelism
// than it was written at all give back every element; a keyed cache is
// partitioned by its key again when read.
func TestCacheKinds(t *testing.T) {
	ctx := context.Background()
	t.Run("side output", func(t *testing.T) {
		env, _ := batchEnv(t)
		var runs seenCounter
		ints := weir.Generate(env, weir.Generator[int64]{Fn: func(i int64) (int64, error) { runs.Add(1); return i, nil }, Count: 100})
		even := weir.ProcessStream(ints, weir.ProcessFunction[int64, int64](splitParity{}))
		odd := weir.Cache(weir.SideOutput(even, oddTag))
		for range 2 {
			got, err := weir.Collect(ctx, odd.DataStream)
			if err != nil || len(got) != 50 || got[0][:4] != "odd " {
				t.Fatalf("Collect of the cached side output: %d elements %v, %v", len(got), got[:min(2, len(got))], err)
			}
		}
		if runs.Load() != 100 {
			t.Fatalf("the source ran over %d elements, want 100", runs.Load())
		}
	})
	t.Run("keyed", func(t *testing.T) {
		env, _ := batchEnv(t)
		var runs seenCounter
		ks := weir.CacheKeyed(weir.KeyBy(weir.Map(weir.FromSlice(env, ints(300)), runs.see), func(v int) int { return v % 3 }))
		sum := func(a, b int) (int, error) { return a + b, nil }
		for range 2 {
			got, err := weir.Collect(ctx, weir.Reduce(ks.KeyedStream, sum))
			if err != nil || !slices.Equal(sorted(got), []int{14850, 14950, 15050}) {
				t.Fatalf("keyed sums %v, %v", got, err)
			}
		}
		if !ks.IsCached() || runs.Load() != 300 {
			t.Fatalf("cached %v, upstream saw %d records, want 300", ks.IsCached(), runs.Load())
		}
	})
	for _, p := range []int{1, 2, 5} {
		t.Run(fmt.Sprintf("written at 3 read at %d", p), func(t *testing.T) {
			env, _ := batchEnv(t)
			c := weir.Cache(weir.Map(weir.FromSlice(env, ints(1000)), func(v int) (int, error) { return v, nil }).SetParallelism(3))
			c.SetReadParallelism(p)
			if _, err := weir.Count(ctx, c.DataStream); err != nil {
				t.Fatal(err)
			}
			if n := len(weir.CacheFiles(c)); n != 6 {
				t.Fatalf("%d cache files, want 2 per writing subtask", n)
			}
			got, err := weir.Collect(ctx, weir.Map(c.DataStream, func(v int) (int, error) { return v, nil }))
			if err != nil || !slices.Equal(sorted(got), ints(1000)) {
				t.Fatalf("read back %d elements, %v", len(got), err)
			}
		})
	}
}

// A cache created by a batch execution is read by a streaming execution
// (Automatic mode, whose execution with an unbounded source streams).
func TestStreamingExecutionReadsABatchCache(t *testing.T) {
	ctx := context.Background()
	env, logs := batchEnv(t, weir.WithMode(weir.Automatic))
	var runs seenCounter
	c := weir.Cache(weir.Map(weir.FromSlice(env, ints(100)), runs.see))
	if _, err := weir.Count(ctx, c.DataStream); err != nil {
		t.Fatal(err)
	}
	endless := weir.Generate(env, weir.Generator[int]{Fn: func(int64) (int, error) { return -1, nil }})
	got, err := weir.CollectN(ctx, weir.Filter(weir.Union(c.DataStream, endless), func(v int) (bool, error) { return v >= 0, nil }), 100)
	if err != nil || !slices.Equal(sorted(got), ints(100)) {
		t.Fatalf("streaming execution over the cache: %d elements, %v\n%s", len(got), err, logs)
	}
	if runs.Load() != 100 {
		t.Fatalf("upstream saw %d records, want 100", runs.Load())
	}
}
