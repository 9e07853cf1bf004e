package main_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

const records = 4 << 20

type sale struct {
	Item   int64
	Amount int64
}

func genSale(i int64) (sale, error) { return sale{Item: i % 10_000, Amount: i % 97}, nil }

func double(s sale) (sale, error) { s.Amount *= 2; return s, nil }

func large(s sale) (bool, error) { return s.Amount > 20, nil }

// countSink counts what it receives into a job-wide counter.
type countSink struct {
	n   int64
	sum *weir.Counter
}

func (c *countSink) Open(rc *weir.RuntimeContext) error { c.sum = rc.Counter("received"); return nil }
func (c *countSink) Invoke(sale) error                  { c.n++; return nil }
func (c *countSink) Finish() error                      { c.sum.Add(c.n); return nil }

// opaque hides f from the inliner, as passing it to the engine does.
//
//go:noinline
func opaque[F any](f F) F { return f }

func report(b *testing.B, start time.Time, n int64) {
	b.ReportMetric(float64(n)*float64(b.N)/time.Since(start).Seconds(), "records/s")
}

// run executes the job, checks the sink saw want records, and returns the
// number of checkpoints completed.
func run(b *testing.B, env *weir.Env, want int64) int {
	b.Helper()
	res, err := env.Execute(context.Background(), b.Name())
	if err != nil {
		b.Fatal(err)
	}
	if got := res.Accumulators["received"]; got != want {
		b.Fatalf("sink received %d records, want %d", got, want)
	}
	return res.Checkpoints.Completed
}

// BenchmarkChained: source -> map -> filter -> sink, all chained into one
// task per subtask, beside the same functions in a plain loop.
func BenchmarkChained(b *testing.B) {
	want := int64(0)
	for i := int64(0); i < records; i++ {
		s, _ := genSale(i)
		s, _ = double(s)
		if ok, _ := large(s); ok {
			want++
		}
	}
	b.Run("loop", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			n := int64(0)
			for i := int64(0); i < records; i++ {
				s, _ := genSale(i)
				s, _ = double(s)
				if ok, _ := large(s); ok {
					n++
				}
			}
			if n != want {
				b.Fatal(n)
			}
		}
		report(b, start, records)
	})
	// The same loop, calling the functions through func values and the sink
	// through an interface, as the engine must: what it costs not to inline.
	b.Run("loop-funcvalues", func(b *testing.B) {
		gen, mapf, filter := opaque(genSale), opaque(double), opaque(large)
		var sink weir.SinkFunction[sale] = &countSink{}
		start := time.Now()
		for range b.N {
			for i := int64(0); i < records; i++ {
				s, _ := gen(i)
				s, _ = mapf(s)
				if ok, _ := filter(s); ok {
					_ = sink.Invoke(s)
				}
			}
		}
		report(b, start, records)
	})
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("engine-p%d", p), func(b *testing.B) {
			start := time.Now()
			for range b.N {
				env := weir.NewEnv(weir.WithParallelism(p))
				src := weir.Generate(env, weir.Generator[sale]{Fn: genSale, Count: records})
				weir.AddSinkWith(weir.Filter(weir.Map(src, double), large), weir.SinkFunction[sale](&countSink{}))
				run(b, env, want)
			}
			report(b, start, records)
		})
	}
}

// BenchmarkKeyed: source -> keyBy -> rolling sum per key -> sink, so every
// record is serialized, crosses a task boundary and is deserialized, beside
// a loop keeping the sums in a map. The checkpointed variants take aligned
// checkpoints of the 10,000 keys' state every 100ms (checkpoint overhead).
func BenchmarkKeyed(b *testing.B) {
	b.Run("loop", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			sums := make(map[int64]int64)
			n := int64(0)
			for i := int64(0); i < records; i++ {
				s, _ := genSale(i)
				sums[s.Item] += s.Amount
				n++
			}
			if n != records {
				b.Fatal(n)
			}
		}
		report(b, start, records)
	})
	for _, tt := range []struct {
		p        int
		interval time.Duration
	}{{1, 0}, {2, 0}, {2, 100 * time.Millisecond}} {
		name := fmt.Sprintf("engine-p%d", tt.p)
		if tt.interval > 0 {
			name += "-checkpoint-" + tt.interval.String()
		}
		b.Run(name, func(b *testing.B) {
			start := time.Now()
			checkpoints := 0
			for range b.N {
				opts := []weir.Option{weir.WithParallelism(tt.p)}
				if tt.interval > 0 {
					opts = append(opts, weir.WithCheckpointing(weir.CheckpointConfig{Interval: tt.interval}))
				}
				env := weir.NewEnv(opts...)
				src := weir.Generate(env, weir.Generator[sale]{Fn: genSale, Count: records})
				sums := weir.Reduce(weir.KeyBy(src, func(s sale) int64 { return s.Item }), func(a, b sale) (sale, error) {
					a.Amount += b.Amount
					return a, nil
				})
				weir.AddSinkWith(sums, weir.SinkFunction[sale](&countSink{}))
				checkpoints += run(b, env, records)
			}
			report(b, start, records)
			if tt.interval > 0 {
				b.ReportMetric(float64(checkpoints)/float64(b.N), "checkpoints/op")
			}
		})
	}
}
