package main_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// The async I/O benchmark of issue 17: 20,000 lookups against a simulated
// service that answers after 1 ms, 100 in flight at a time, results in
// input order; beside a hand-written Go program doing the same (a
// semaphore of 100 goroutines, results collected in order). The ideal is
// 100 lookups per ms: 100,000/s.
const (
	asyncRecords  = 20_000
	asyncCapacity = 100
	asyncLatency  = time.Millisecond
)

func simulatedService(ctx context.Context, i int64) ([]int64, error) {
	t := time.NewTimer(asyncLatency)
	defer t.Stop()
	select {
	case <-t.C:
		return []int64{i * 2}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func BenchmarkAsyncIO(b *testing.B) {
	b.Run("handwritten", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			if sum := handwrittenOrdered(); sum != wantAsyncSum() {
				b.Fatalf("sum %d", sum)
			}
		}
		reportAsync(b, start)
	})
	for _, ordered := range []bool{true, false} {
		b.Run(fmt.Sprintf("engine/ordered=%v", ordered), func(b *testing.B) {
			start := time.Now()
			for range b.N {
				env := weir.NewEnv(weir.WithParallelism(1))
				src := weir.Generate(env, weir.Generator[int64]{Fn: func(i int64) (int64, error) { return i, nil }, Count: asyncRecords})
				wait := weir.AsyncWait[int64, int64]
				if ordered {
					wait = weir.AsyncWaitOrdered[int64, int64]
				}
				var sum int64
				weir.AddSink(wait(src, simulatedService, time.Minute, weir.WithAsyncCapacity(asyncCapacity)), func(v int64) error { sum += v; return nil })
				if _, err := env.Execute(context.Background(), "async-bench"); err != nil {
					b.Fatal(err)
				}
				if sum != wantAsyncSum() {
					b.Fatalf("sum %d", sum)
				}
			}
			reportAsync(b, start)
		})
	}
}

func wantAsyncSum() int64 { return asyncRecords * (asyncRecords - 1) }

func reportAsync(b *testing.B, start time.Time) {
	b.ReportMetric(float64(asyncRecords)*float64(b.N)/time.Since(start).Seconds(), "records/s")
}

// handwrittenOrdered is what a Go programmer writes without an engine:
// one goroutine per lookup, at most asyncCapacity at once, results read
// in input order through a queue of result channels.
func handwrittenOrdered() int64 {
	ctx := context.Background()
	sem := make(chan struct{}, asyncCapacity)
	pending := make(chan chan []int64, asyncCapacity)
	go func() {
		for i := int64(0); i < asyncRecords; i++ {
			sem <- struct{}{}
			res := make(chan []int64, 1)
			pending <- res
			go func(i int64) {
				r, _ := simulatedService(ctx, i)
				res <- r
				<-sem
			}(i)
		}
		close(pending)
	}()
	var sum int64
	for res := range pending {
		for _, v := range <-res {
			sum += v
		}
	}
	return sum
}
