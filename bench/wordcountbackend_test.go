package main_test

import (
	"context"
	"os"
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
// iteration, and reports both times and their ratio (pebble-s / heap-s,
// taken pair by pair so that a machine whose speed drifts moves both).
// Target: Pebble at most 3x the heap (Flink's RocksDB backend is typically
// 2-5x slower than its heap backend). Both outputs are checked.
func BenchmarkWordcountStateBackends(b *testing.B) {
	mb := wordcountBackendMB()
	path, err := wordcountFile(mb)
	if err != nil {
		b.Fatal(err)
	}
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
	var heap, pebble time.Duration
	var ratios float64
	for range b.N {
		h := run(weir.StateBackend{})
		p := run(weir.StateBackend{Kind: weir.Pebble})
		heap += h
		pebble += p
		ratios += p.Seconds() / h.Seconds()
	}
	n := float64(b.N)
	b.ReportMetric(heap.Seconds()/n, "heap-s")
	b.ReportMetric(pebble.Seconds()/n, "pebble-s")
	b.ReportMetric(ratios/n, "pebble/heap")
	b.ReportMetric(float64(mb), "input-MB")
}
