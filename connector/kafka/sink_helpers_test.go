package kafka

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	weir "github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/kafkatest"
	"go.uber.org/goleak"
)

// startCluster starts a kfake cluster for one test, with a goroutine leak
// check after it stopped (no TestMain: the package's source tests may have
// their own).
func startCluster(t *testing.T, opts ...kfake.Opt) *kafkatest.Cluster {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) })
	return kafkatest.Start(t, opts...)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// stringOptions are exactly-once options for string elements, written as
// values, keyed by themselves, to topic.
func stringOptions(c *kafkatest.Cluster, topic, prefix string) SinkOptions[string] {
	return SinkOptions[string]{
		Brokers: c.Brokers(), Topic: topic, DeliveryGuarantee: ExactlyOnce, TransactionalIDPrefix: prefix,
		Serializer: func(s string) (*kgo.Record, error) { return &kgo.Record{Key: []byte(s), Value: []byte(s)}, nil },
		Timeout:    10 * time.Second,
	}
}

func mustSink(t *testing.T, o SinkOptions[string]) *Sink[string] {
	t.Helper()
	s, err := TryNewSink(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sinkInfo(sub, p int, restored int64) weir.SinkContext {
	return weir.SinkContext{JobID: "job", OperatorUID: "sink", SubtaskIndex: sub, Parallelism: p, RestoredFromID: restored}
}

func newWriter(t *testing.T, s *Sink[string], info weir.SinkContext) *writer[string] {
	t.Helper()
	w, err := s.CreateWriter(testCtx(t), info)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w.(*writer[string])
}

func newCommitter(t *testing.T, s *Sink[string]) *committer[string] {
	t.Helper()
	c, err := s.CreateCommitter(testCtx(t), sinkInfo(0, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.(*committer[string])
}

// write writes the values and pre-commits them for the checkpoint.
func write(t *testing.T, w *writer[string], checkpointID int64, values ...string) []Committable {
	t.Helper()
	ctx := testCtx(t)
	for _, v := range values {
		if err := w.Write(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx, false); err != nil {
		t.Fatal(err)
	}
	cs, err := w.PrepareCommit(ctx, checkpointID)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// crash leaves the writer's open transaction open, as a killed process
// does: its client goes away without ending it.
func crash(t *testing.T, w *writer[string], values ...string) {
	t.Helper()
	ctx := testCtx(t)
	for _, v := range values {
		if err := w.Write(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx, false); err != nil {
		t.Fatal(err)
	}
	w.cl.Close()
	w.cl, w.txn = nil, ""
}

func readSorted(t *testing.T, c *kafkatest.Cluster, topic string, committed bool) []string {
	t.Helper()
	got, err := kafkatest.ReadAll(testCtx(t), c.Brokers(), topic, committed)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

// openTxns lists the transactional ids with an open transaction.
func openTxns(t *testing.T, c *kafkatest.Cluster) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrListTransactionsRequest()
	req.StateFilters = []string{"Ongoing"}
	resp, err := req.RequestWith(testCtx(t), cl)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range resp.TransactionStates {
		ids = append(ids, s.TransactionalID)
	}
	slices.Sort(ids)
	return ids
}

// logBuffer collects log lines of the sink.
type logBuffer struct{ strings.Builder }

func (b *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }
