package main_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

const records = 4 << 20

// items is how many distinct keys (sale.Item) the generated sales have.
const items = 10_000

type sale struct {
	Item   int64
	Amount int64
}

func genSale(i int64) (sale, error) { return sale{Item: i % items, Amount: i % 97}, nil }

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

// finalSumSink receives a rolling sum per item and keeps each item's largest
// (amounts are not negative, so that is its final sum). In Finish it adds
// a weighted checksum of its items' sums to the job-wide counter
// "checksum" and their count to "received"; the subtasks' items are
// disjoint, so the job's totals compare with finalSums.
type finalSumSink struct {
	n        int64
	last     []int64
	received *weir.Counter
	checksum *weir.Counter
}

func (c *finalSumSink) Open(rc *weir.RuntimeContext) error {
	c.last = make([]int64, items)
	c.received, c.checksum = rc.Counter("received"), rc.Counter("checksum")
	return nil
}

func (c *finalSumSink) Invoke(s sale) error {
	c.n++
	c.last[s.Item] = max(c.last[s.Item], s.Amount)
	return nil
}

func (c *finalSumSink) Finish() error {
	c.received.Add(c.n)
	c.checksum.Add(sumsChecksum(c.last))
	return nil
}

// sumsChecksum weighs each item's sum by a distinct odd factor, so a sum
// moved to another item or off by any amount changes the result.
func sumsChecksum(sums []int64) int64 {
	var h int64
	for item, s := range sums {
		h += s * (2*int64(item) + 1)
	}
	return h
}

// finalSums is the checksum finalSumSink reports for the first n sales.
func finalSums(n int64) int64 {
	sums := make([]int64, items)
	for i := range n {
		s, _ := genSale(i)
		sums[s.Item] += s.Amount
	}
	return sumsChecksum(sums)
}

// runKeyed is run for a job ending in a finalSumSink: it also checks every
// item's final sum against wantSums (finalSums).
func runKeyed(b *testing.B, env *weir.Env, want, wantSums int64) int {
	b.Helper()
	res := runResult(b, env)
	if got := res.Accumulators["received"]; got != want {
		b.Fatalf("sink received %d records, want %d", got, want)
	}
	if got := res.Accumulators["checksum"]; got != wantSums {
		b.Fatalf("checksum of the final sums is %d, want %d", got, wantSums)
	}
	return res.Checkpoints.Completed
}

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
	wantSums := finalSums(records)
	b.Run("loop", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			sums := make(map[int64]int64)
			for i := int64(0); i < records; i++ {
				s, _ := genSale(i)
				sums[s.Item] += s.Amount
			}
			flat := make([]int64, items)
			for item, sum := range sums {
				flat[item] = sum
			}
			if got := sumsChecksum(flat); got != wantSums {
				b.Fatalf("checksum of the sums is %d, want %d", got, wantSums)
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
				weir.AddSinkWith(sums, weir.SinkFunction[sale](&finalSumSink{}))
				checkpoints += runKeyed(b, env, records, wantSums)
			}
			report(b, start, records)
			if tt.interval > 0 {
				b.ReportMetric(float64(checkpoints)/float64(b.N), "checkpoints/op")
			}
		})
	}
}
