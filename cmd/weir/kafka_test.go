package main

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/weir-engine/weir/internal/kafkatest"
	"github.com/weir-engine/weir/jobs/sequence"
)

// kafkaSink are the sequence job's flags for the Kafka sink.
func kafkaSink(c *kafkatest.Cluster, topic string) []string {
	return []string{"--sink", "kafka", "--kafka-brokers", c.BrokerList(), "--topic", topic}
}

// A `weir run sequence --sink kafka` SIGKILLed after two checkpoints, in
// the middle of a transaction, then
// the same command again, which resumes from the killed run's newest
// checkpoint by itself: a read_committed consumer sees every line once, a
// read_uncommitted one sees them all and what the killed run wrote after
// its last checkpoint, and no transaction is left open.
func TestKilledKafkaRunResumesWithTheSameCommand(t *testing.T) {
	c := kafkatest.Start(t, kfake.SeedTopics(4, "seq"))
	cfg := sequence.Config{Keys: 4, RecordsPerKey: 2000, Rate: 8000}
	cmd := seqCommand(cfg, t.TempDir(), kafkaSink(c, "seq")...)
	p := startWeir(t, cmd...)
	if p.awaitCheckpoints(2) == "" {
		code, stderr := p.wait()
		t.Fatalf("run ended (exit %d) before two checkpoints: %s", code, stderr)
	}
	// Half a checkpoint interval later, so that the kill lands while a
	// transaction is open: this chooses the moment, it waits for nothing.
	time.Sleep(50 * time.Millisecond)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code, stderr := p.wait(); code != -1 {
		t.Fatalf("the killed run exited %d:\n%s", code, stderr)
	}
	r := runWeir(t, cmd...)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming job sequence from ") {
		t.Fatalf("second run: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	committed := verifyKafka(t, c, cfg, "seq")
	all := readTopic(t, c, "seq", false)
	if len(all) < len(committed) {
		t.Fatalf("read_uncommitted sees %d records, fewer than the %d committed", len(all), len(committed))
	}
	t.Logf("read_committed: %d records; read_uncommitted: %d more (the killed run's writes after its last checkpoint that reached the brokers)",
		len(committed), len(all)-len(committed))
}

// The chaos test with the Kafka sink: killed at random moments, run again
// each time, the records that read_committed consumers see are
// exactly-once.
func TestChaosKillAndRerunKafkaSink(t *testing.T) {
	c := kafkatest.Start(t, kfake.SeedTopics(3, "chaos"))
	cfg := chaosConfig()
	resumed := chaos(t, seqCommand(cfg, t.TempDir(), kafkaSink(c, "chaos")...))
	t.Logf("%d of %d runs resumed from a checkpoint", resumed, *chaosKills+1)
	verifyKafka(t, c, cfg, "chaos")
}

// verifyKafka checks what read_committed consumers see of the topic, and
// that no transaction is left open; it returns the lines.
func verifyKafka(t *testing.T, c *kafkatest.Cluster, cfg sequence.Config, topic string) []string {
	t.Helper()
	lines := readTopic(t, c, topic, true)
	if err := sequence.Verify(cfg, lines); err != nil {
		t.Fatalf("read_committed: records of all runs together are not exactly-once: %v", err)
	}
	if open := openTransactions(t, c); len(open) > 0 {
		t.Fatalf("transactions left open: %q", open)
	}
	return lines
}

func readTopic(t *testing.T, c *kafkatest.Cluster, topic string, committed bool) []string {
	t.Helper()
	return c.Read(t, topic, committed)
}

func openTransactions(t *testing.T, c *kafkatest.Cluster) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := kmsg.NewPtrListTransactionsRequest()
	req.StateFilters = []string{"Ongoing"}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range resp.TransactionStates {
		ids = append(ids, s.TransactionalID)
	}
	return ids
}

// Bad input through the CLI: a transaction timeout not longer than the
// checkpoint interval is refused before the job runs (exit 2, usage), and
// brokers that are not there fail the run with a one-line reason that
// names them.
func TestKafkaSinkBadInput(t *testing.T) {
	c := kafkatest.Start(t, kfake.SeedTopics(1, "t"))
	dead := c.Brokers()[0]
	for _, tt := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"transaction timeout", []string{"run", "--checkpoint-interval", "10s", "sequence", "--keys", "1", "--records-per-key", "1",
			"--sink", "kafka", "--kafka-brokers", c.BrokerList(), "--topic", "t", "--kafka-transaction-timeout", "5s"},
			2, []string{"transaction.timeout.ms 5s", "checkpoint interval 10s"}},
		{"unknown topic", []string{"run", "sequence", "--keys", "1", "--records-per-key", "1",
			"--sink", "kafka", "--kafka-brokers", c.BrokerList(), "--topic", "missing"},
			1, []string{`topic "missing" does not exist`}},
		{"delivery", []string{"run", "sequence", "--sink", "kafka", "--kafka-brokers", c.BrokerList(), "--topic", "t", "--kafka-delivery", "twice"},
			2, []string{`delivery guarantee "twice"`}},
		{"no brokers", []string{"run", "sequence", "--sink", "kafka", "--topic", "t"}, 2, []string{"--kafka-brokers and --topic are required"}},
		{"brokers not there", []string{"run", "sequence", "--keys", "1", "--records-per-key", "1",
			"--sink", "kafka", "--kafka-brokers", "DEAD", "--topic", "t"}, 1, []string{"brokers DEAD", "connection refused"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			want := tt.want
			if tt.name == "brokers not there" {
				c.Close() // its addresses refuse connections from now on
				args = replaceAll(args, "DEAD", dead)
				want = replaceAll(want, "DEAD", dead)
			}
			r := runWeir(t, args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tt.code, r.stderr)
			}
			for _, w := range want {
				if !strings.Contains(r.stderr, w) {
					t.Fatalf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

func replaceAll(ss []string, old, new string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ReplaceAll(s, old, new)
	}
	return out
}
