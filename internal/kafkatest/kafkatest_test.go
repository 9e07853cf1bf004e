package kafkatest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir/internal/kafkatest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A transactional producer and a read_committed consumer reach the
// cluster over TCP on loopback: committed records are read, aborted ones
// are not.
func TestClusterOverLoopback(t *testing.T) {
	c := kafkatest.Start(t, kfake.SeedTopics(1, "t"))
	for _, b := range c.Brokers() {
		if !strings.HasPrefix(b, "127.0.0.1:") {
			t.Fatalf("broker %s is not on loopback", b)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.TransactionalID("tx"), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, commit := range []bool{false, true} {
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		v := "aborted"
		if commit {
			v = "committed"
		}
		if err := p.ProduceSync(ctx, kgo.StringRecord(v)).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := p.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.ConsumeTopics("t"),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	fs := cl.PollFetches(ctx)
	if err := fs.Err0(); err != nil {
		t.Fatal(err)
	}
	var got []string
	fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	if len(got) != 1 || got[0] != "committed" {
		t.Fatalf("read_committed consumer read %q, want only the committed record", got)
	}
}
