package weir_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// A fast source feeding a slow sink over the network must not queue the
// difference in memory: credit-based flow control makes the source wait.
// The source produces 256 MiB; the heap must stay far below that.
func TestSlowSinkBoundsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 256 MiB through the network")
	}
	const (
		recordSize = 4 << 10
		records    = 64 << 10 // 256 MiB in all
		bound      = 64 << 20 // what the test allows the heap to grow
	)
	payload := strings.Repeat("x", recordSize)
	env := weir.NewEnv(weir.WithParallelism(2))
	var produced, consumed atomic.Int64
	src := weir.Generate(env, weir.Generator[string]{
		Fn: func(i int64) (string, error) {
			produced.Add(1)
			// A fresh string per record, as a real source would allocate.
			return strings.Clone(payload), nil
		},
		Count: records,
	})
	weir.AddSink(src.Rebalance(), func(s string) error {
		if consumed.Add(1)%256 == 0 {
			time.Sleep(time.Millisecond)
		}
		return nil
	}).Name("slow sink")

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	done := make(chan error)
	go func() { _, err := env.Execute(context.Background(), "backpressure"); done <- err }()
	var peak uint64
	var maxLead int64
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if consumed.Load() != records {
				t.Fatalf("sink saw %d records, want %d", consumed.Load(), records)
			}
			growth := int64(peak) - int64(base.HeapAlloc)
			t.Logf("peak heap growth %d MiB, max records in flight %d (%d MiB)", growth>>20, maxLead, maxLead*recordSize>>20)
			if maxLead*recordSize > bound {
				t.Fatalf("%d records (%d MiB) were in flight at once: the source was not held back", maxLead, maxLead*recordSize>>20)
			}
			if growth > bound {
				t.Fatalf("heap grew by %d MiB, more than %d MiB", growth>>20, bound>>20)
			}
			return
		case <-tick.C:
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			maxLead = max(maxLead, produced.Load()-consumed.Load())
		}
	}
}
