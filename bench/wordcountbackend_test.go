package main_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/wordcount"
)

// wordcountBackendMB is the input of BenchmarkWordcountStateBackends in
// MB: WEIR_BENCH_WORDCOUNT_MB, default 210 (the figure of issue 9).
func wordcountBackendMB() int {
	if n, err := strconv.Atoi(os.Getenv("WEIR_BENCH_WORDCOUNT_MB")); err == nil && n > 0 {
		return n
	}
	return 210
}

// BenchmarkWordcountStateBackends runs the wordcount job at parallelism 2
// on the heap backend and on Pebble, one after the other in every
// iteration, and reports the medians of both times and of their ratio
// (pebble-s / heap-s, taken pair by pair so that a machine whose speed
// drifts moves both).
// Target: Pebble at most 3x the heap (Flink's RocksDB backend is typically
// 2-5x slower than its heap backend). Both outputs are checked.
func BenchmarkWordcountStateBackends(b *testing.B) {
	mb := wordcountBackendMB()
	path, err := wordcountFile(mb)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("input: %s (%d MB)", path, mb)
	want, err := countLoop(path)
	if err != nil {
		b.Fatal(err)
	}
	run := func(backend weir.StateBackend) time.Duration {
		out := b.TempDir()
		backend.LocalDir = b.TempDir()
		env := weir.NewEnv(weir.WithParallelism(2), weir.WithStateBackend(backend))
		if err := wordcount.Wordcount(env, []string{path}, out); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := env.Execute(context.Background(), "wordcount"); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		b.StopTimer()
		checkWordcount(b, out, want)
		b.StartTimer()
		return took
	}
	var heap, pebble, ratios []float64
	for range b.N {
		h := run(weir.StateBackend{}).Seconds()
		p := run(weir.StateBackend{Kind: weir.Pebble}).Seconds()
		heap, pebble, ratios = append(heap, h), append(pebble, p), append(ratios, p/h)
	}
	b.ReportMetric(median(heap), "heap-s")
	b.ReportMetric(median(pebble), "pebble-s")
	b.ReportMetric(median(ratios), "pebble/heap")
	b.ReportMetric(float64(mb), "input-MB")
}

// median returns the median of xs (the mean of the middle two for an even
// count), which one slow or lucky run does not move.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
