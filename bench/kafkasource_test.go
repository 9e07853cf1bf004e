package main_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/kafka"
	"github.com/weir-engine/weir/internal/kafkatest"
)

const (
	kafkaRecords    = 1 << 20
	kafkaPartitions = 4
	kafkaValueSize  = 100
)

// kafkaCountSink counts records into a job-wide counter.
type kafkaCountSink struct {
	n   int64
	sum *weir.Counter
}

func (c *kafkaCountSink) Open(rc *weir.RuntimeContext) error {
	c.sum = rc.Counter("received")
	return nil
}
func (c *kafkaCountSink) Invoke([]byte) error { c.n++; return nil }
func (c *kafkaCountSink) Finish() error       { c.sum.Add(c.n); return nil }

// BenchmarkKafkaSource: records/s read from a kfake cluster over TCP on
// loopback (kafkaRecords records of 100 bytes in 4 partitions), by
// franz-go alone in a plain consume loop and by Weir's Kafka source in a
// bounded job (source -> counting sink), at parallelism 1 and 2, and at 1
// with a checkpoint every 100 ms. Each Weir figure is also reported as a
// ratio to franz-go's of the same run (x-franz-go).
func BenchmarkKafkaSource(b *testing.B) {
	c := kafkatest.Start(b, kfake.SeedTopics(kafkaPartitions, "bench"))
	fill(b, c)
	var baseline float64
	b.Run("franz-go", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			consumeLoop(b, c)
		}
		baseline = float64(kafkaRecords) * float64(b.N) / time.Since(start).Seconds()
		b.ReportMetric(baseline, "records/s")
	})
	for _, tt := range []struct {
		p          int
		checkpoint time.Duration
	}{{1, 0}, {2, 0}, {1, 100 * time.Millisecond}} {
		name := fmt.Sprintf("weir-p%d", tt.p)
		if tt.checkpoint > 0 {
			name += "-checkpoint-" + tt.checkpoint.String()
		}
		b.Run(name, func(b *testing.B) {
			start := time.Now()
			for range b.N {
				opts := []weir.Option{weir.WithParallelism(tt.p)}
				if tt.checkpoint > 0 {
					opts = append(opts, weir.WithCheckpointing(weir.CheckpointConfig{Interval: tt.checkpoint}))
				}
				env := weir.NewEnv(opts...)
				s, err := kafka.Source(env, kafka.SourceOptions[[]byte]{
					Brokers: c.Brokers(), Topics: []string{"bench"}, Bounded: true,
					Deserializer: func(r *kafka.Record) ([]byte, error) { return r.Value, nil },
				})
				if err != nil {
					b.Fatal(err)
				}
				weir.AddSinkWith(s, weir.SinkFunction[[]byte](&kafkaCountSink{}))
				run(b, env, kafkaRecords)
			}
			rate := float64(kafkaRecords) * float64(b.N) / time.Since(start).Seconds()
			b.ReportMetric(rate, "records/s")
			if baseline > 0 {
				b.ReportMetric(rate/baseline, "x-franz-go")
			}
		})
	}
}

// fill writes the benchmark's records.
func fill(b *testing.B, c *kafkatest.Cluster) {
	b.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.DefaultProduceTopic("bench"))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	value := make([]byte, kafkaValueSize)
	const batch = 8192
	for i := 0; i < kafkaRecords; i += batch {
		recs := make([]*kgo.Record, batch)
		for j := range recs {
			recs[j] = &kgo.Record{Value: value, Key: fmt.Appendf(nil, "%d", i+j)}
		}
		if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
}

// consumeLoop reads every record of the topic with franz-go alone.
func consumeLoop(b *testing.B, c *kafkatest.Cluster) {
	b.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.ConsumeTopics("bench"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(500*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	n, bytes := 0, 0
	for n < kafkaRecords {
		fs := cl.PollFetches(context.Background())
		if err := fs.Err0(); err != nil {
			b.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) { n++; bytes += len(r.Value) })
	}
	if bytes != n*kafkaValueSize {
		b.Fatalf("read %d bytes in %d records", bytes, n)
	}
}
