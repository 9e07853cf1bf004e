package main_test

import (
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// BenchmarkCheckpointOverhead: the keyed job of BenchmarkKeyed on enough
// records to run for a few seconds, with and without aligned checkpoints
// every second, in the same run (the FLIPs' figures of issue 5).
func BenchmarkCheckpointOverhead(b *testing.B) {
	const n = 12 * records
	wantSums := finalSums(n)
	for _, interval := range []time.Duration{0, time.Second} {
		name := "no-checkpoints"
		if interval > 0 {
			name = "checkpoint-" + interval.String()
		}
		b.Run(name, func(b *testing.B) {
			start := time.Now()
			checkpoints := 0
			for range b.N {
				opts := []weir.Option{weir.WithParallelism(2)}
				if interval > 0 {
					opts = append(opts, weir.WithCheckpointing(weir.CheckpointConfig{Interval: interval}))
				}
				env := weir.NewEnv(opts...)
				src := weir.Generate(env, weir.Generator[sale]{Fn: genSale, Count: n})
				sums := weir.Reduce(weir.KeyBy(src, func(s sale) int64 { return s.Item }), func(a, b sale) (sale, error) {
					a.Amount += b.Amount
					return a, nil
				})
				weir.AddSinkWith(sums, weir.SinkFunction[sale](&finalSumSink{}))
				checkpoints += runKeyed(b, env, n, wantSums)
			}
			report(b, start, n)
			b.ReportMetric(float64(checkpoints)/float64(b.N), "checkpoints/op")
		})
	}
}
