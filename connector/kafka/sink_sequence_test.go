package kafka_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	weir "github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/kafkatest"
	"github.com/weir-engine/weir/jobs/sequence"
	"go.uber.org/goleak"
)

// seqArgs are the arguments of the sequence job writing to topic through
// the Kafka sink.
func seqArgs(cfg sequence.Config, c *kafkatest.Cluster, topic string, extra ...string) []string {
	args := []string{"--keys", fmt.Sprint(cfg.Keys), "--records-per-key", fmt.Sprint(cfg.RecordsPerKey),
		"--rate", fmt.Sprint(cfg.Rate), "--short-source-records", fmt.Sprint(cfg.ShortRecords), "--fail-after", fmt.Sprint(cfg.FailAfter),
		"--sink", "kafka", "--kafka-brokers", c.BrokerList(), "--topic", topic}
	return append(args, extra...)
}

func runSequence(t *testing.T, env *weir.Env, args []string) *weir.Result {
	t.Helper()
	if err := sequence.Job(env, args); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := env.Execute(ctx, "sequence")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func read(t *testing.T, c *kafkatest.Cluster, topic string, committed bool) []string {
	t.Helper()
	return c.Read(t, topic, committed)
}

// The sequence job through the exactly-once Kafka sink, failing once
// (--fail-after) and restarting from its latest checkpoint, aligned and
// unaligned: a read_committed consumer sees every line exactly once; a
// read_uncommitted one sees them all too, and also the records of the
// failed attempt's aborted transaction (how many depends on how far the
// producer got before the abort, so this test logs them;
// TestExactlyOnceAcrossACrash shows them deterministically).
func TestSequenceExactlyOnceWithAFailure(t *testing.T) {
	for _, unaligned := range []bool{false, true} {
		t.Run(fmt.Sprint("unaligned=", unaligned), func(t *testing.T) {
			t.Cleanup(func() { goleak.VerifyNone(t) })
			c := kafkatest.Start(t, kfake.SeedTopics(4, "seq"))
			cfg := sequence.Config{Keys: 8, RecordsPerKey: 300, Rate: 10000, ShortRecords: 12, FailAfter: 900}
			env := weir.NewEnv(weir.WithParallelism(2), weir.WithLogger(slog.New(slog.DiscardHandler)),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 50 * time.Millisecond, Unaligned: unaligned}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(3, 10*time.Millisecond)))
			res := runSequence(t, env, seqArgs(cfg, c, "seq"))
			if res.Restarts != 1 {
				t.Errorf("restarts = %d, want 1", res.Restarts)
			}
			committed := read(t, c, "seq", true)
			if err := sequence.Verify(cfg, committed); err != nil {
				t.Fatalf("read_committed: %v", err)
			}
			all := read(t, c, "seq", false)
			extra, err := subtract(all, committed)
			if err != nil {
				t.Fatalf("read_uncommitted: %v", err)
			}
			t.Logf("read_committed: %d records; read_uncommitted: %d more, of the failed attempt's aborted transactions", len(committed), len(extra))
		})
	}
}

// subtract returns the lines of all that are not in part (as multisets),
// or an error if part has a line that all has not.
func subtract(all, part []string) ([]string, error) {
	n := make(map[string]int)
	for _, l := range all {
		n[l]++
	}
	for _, l := range part {
		if n[l] == 0 {
			return nil, fmt.Errorf("line %q is not there", l)
		}
		n[l]--
	}
	var rest []string
	for l, k := range n {
		for range k {
			rest = append(rest, l)
		}
	}
	return rest, nil
}

// FLIP-147 with Kafka: a bounded job whose checkpoint interval is 10 minutes
// has every record committed by its final checkpoint; without checkpoints
// the sink commits at the end of its input.
func TestBoundedSequenceCommitsEverything(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []weir.Option
	}{
		{"final checkpoint", []weir.Option{weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Minute})}},
		{"no checkpoints", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Cleanup(func() { goleak.VerifyNone(t) })
			c := kafkatest.Start(t, kfake.SeedTopics(3, "bounded"))
			cfg := sequence.Config{Keys: 6, RecordsPerKey: 500, ShortRecords: 9}
			env := weir.NewEnv(append([]weir.Option{weir.WithParallelism(2), weir.WithLogger(slog.New(slog.DiscardHandler))}, tt.opts...)...)
			res := runSequence(t, env, seqArgs(cfg, c, "bounded"))
			if err := sequence.Verify(cfg, read(t, c, "bounded", true)); err != nil {
				t.Fatalf("read_committed: %v", err)
			}
			if tt.opts != nil && res.Checkpoints.Completed < 1 {
				t.Fatalf("%d checkpoints: the final one is missing", res.Checkpoints.Completed)
			}
		})
	}
}
