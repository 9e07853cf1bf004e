package kafka

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir/internal/kafkatest"
)

// benchCheckpointEvery is how many records a benchmark writes between two
// (simulated) checkpoints: about 0.1 s of records at the rates measured,
// as with a 100 ms checkpoint interval.
const benchCheckpointEvery = 10000

var benchValue = make([]byte, 100)

// BenchmarkWrite measures records/s written to a kfake cluster over
// loopback: by the sink's writer with each delivery guarantee (with a
// pre-commit, and for exactly-once a commit, every benchCheckpointEvery
// records, as checkpoints do), and by franz-go alone doing the same: a
// plain produce loop flushed at the same points, and a transactional one
// committing there. Compare records/s of sink/X with franz-go/X.
//
//	go test -run '^$' -bench BenchmarkWrite -benchtime 200000x ./connector/kafka/
func BenchmarkWrite(b *testing.B) {
	c := kafkatest.Start(b, kfake.SeedTopics(3, "bench"))
	for _, g := range []DeliveryGuarantee{None, AtLeastOnce, ExactlyOnce} {
		b.Run("sink/"+string(g), func(b *testing.B) { benchSink(b, c, g) })
	}
	b.Run("franz-go/plain", func(b *testing.B) { benchFranz(b, c, false) })
	b.Run("franz-go/transactional", func(b *testing.B) { benchFranz(b, c, true) })
}

func benchSink(b *testing.B, c *kafkatest.Cluster, g DeliveryGuarantee) {
	ctx := context.Background()
	s, err := TryNewSink(SinkOptions[int]{Brokers: c.Brokers(), Topic: "bench", DeliveryGuarantee: g, TransactionalIDPrefix: "bench-" + string(g),
		Serializer: func(int) (*kgo.Record, error) { return &kgo.Record{Value: benchValue}, nil }})
	if err != nil {
		b.Fatal(err)
	}
	wi, err := s.CreateWriter(ctx, sinkInfo(0, 1, 0))
	if err != nil {
		b.Fatal(err)
	}
	defer wi.Close()
	ci, err := s.CreateCommitter(ctx, sinkInfo(0, 1, 0))
	if err != nil {
		b.Fatal(err)
	}
	defer ci.Close()
	checkpoint := int64(0)
	commit := func() {
		checkpoint++
		if err := wi.Flush(ctx, false); err != nil {
			b.Fatal(err)
		}
		cs, err := wi.PrepareCommit(ctx, checkpoint)
		if err != nil {
			b.Fatal(err)
		}
		if err := ci.Commit(ctx, cs); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		if err := wi.Write(ctx, i); err != nil {
			b.Fatal(err)
		}
		if (i+1)%benchCheckpointEvery == 0 {
			commit()
		}
	}
	if err := wi.Flush(ctx, true); err != nil {
		b.Fatal(err)
	}
	commit()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func benchFranz(b *testing.B, c *kafkatest.Cluster, transactional bool) {
	ctx := context.Background()
	opts := []kgo.Opt{kgo.SeedBrokers(c.Brokers()...), kgo.DefaultProduceTopic("bench"), kgo.DisableClientMetrics()}
	if transactional {
		opts = append(opts, kgo.TransactionalID("bench-franz"))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	var failed error
	promise := func(_ *kgo.Record, err error) {
		if err != nil && failed == nil {
			failed = err
		}
	}
	begin := func() {
		if transactional {
			if err := cl.BeginTransaction(); err != nil {
				b.Fatal(err)
			}
		}
	}
	end := func() {
		if err := cl.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		if transactional {
			if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	begin()
	for i := range b.N {
		cl.Produce(ctx, &kgo.Record{Value: benchValue}, promise)
		if (i+1)%benchCheckpointEvery == 0 {
			end()
			begin()
		}
	}
	end()
	if failed != nil {
		b.Fatal(failed)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
