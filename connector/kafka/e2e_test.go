package kafka_test

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/kafka"
	"github.com/weir-engine/weir/internal/kafkatest"
	"github.com/weir-engine/weir/jobs/sequence"
)

// e2eKeys is the number of keys of the end-to-end job: input record i
// (value "in/<i>", see produce) is sequence number i/e2eKeys of key
// "k<i mod e2eKeys>". With a number of input partitions that divides
// e2eKeys, each key's records are in one partition, in order.
const e2eKeys = 8

// e2eRecord parses an input record of produce into the sequence job's
// record.
func e2eRecord(r *kafka.Record) (sequence.Record, error) {
	v := string(r.Value)
	i, err := strconv.ParseInt(v[strings.IndexByte(v, '/')+1:], 10, 64)
	if err != nil {
		return sequence.Record{}, fmt.Errorf("input record %q: %w", v, err)
	}
	return sequence.Record{Key: "k" + strconv.FormatInt(i%e2eKeys, 10), Seq: i / e2eKeys}, nil
}

// e2eCounter counts each key's records in keyed state, as the sequence
// job does, so an output line's count is its sequence number plus one
// only if state and output are both exactly-once. In the first attempt of
// a run it fails at the record failAt (when set).
type e2eCounter struct {
	failAt  *sequence.Record
	attempt int
	count   weir.ValueState[int64]
}

func (c *e2eCounter) Open(rc *weir.KeyedRuntimeContext[string]) error {
	c.attempt = rc.Attempt
	var err error
	c.count, err = weir.GetValueState[int64](rc, "count")
	return err
}

func (c *e2eCounter) ProcessElement(ctx *weir.KeyedContext[string, sequence.Count], r sequence.Record) error {
	if c.failAt != nil && c.attempt == 0 && r == *c.failAt {
		return fmt.Errorf("failing at %s/%d, as the test asked", r.Key, r.Seq)
	}
	n, _ := c.count.Value()
	n++
	c.count.Update(n)
	ctx.Collect(sequence.Count{Key: r.Key, Seq: r.Seq, Count: n})
	return nil
}

// e2eJob reads topic in read_committed, counts per key and writes the
// sequence job's lines to topic out through the exactly-once sink.
func e2eJob(t *testing.T, c *kafkatest.Cluster, in, out string, failAt *sequence.Record, opts ...weir.Option) *weir.Env {
	t.Helper()
	env := weir.NewEnv(append([]weir.Option{weir.WithLogger(slog.New(slog.DiscardHandler)),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond}),
		weir.WithRestartStrategy(weir.FixedDelayRestart(3, 10*time.Millisecond))}, opts...)...)
	o := kafka.SourceOptions[sequence.Record]{
		Brokers: c.Brokers(), Topics: []string{in}, RequestTimeout: 5 * time.Second,
		ReadCommitted: true, Deserializer: e2eRecord,
	}
	records := source(t, env, o).UID("kafka-source")
	counts := weir.Process(weir.KeyBy(records, func(r sequence.Record) string { return r.Key }),
		weir.KeyedProcessFunction[string, sequence.Record, sequence.Count](&e2eCounter{failAt: failAt})).UID("count")
	sinkOpts := sequence.KafkaOptions(c.Brokers(), out, kafka.ExactlyOnce, 0, env.Options().Logger)
	sink, err := kafka.SinkTo(counts, sinkOpts)
	if err != nil {
		t.Fatal(err)
	}
	sink.UID("kafka-sink")
	return env
}

// awaitTopic waits until a read_committed consumer sees at least n
// records in topic, or fails the test when the job ends first.
func awaitTopic(t *testing.T, c *kafkatest.Cluster, job *weir.JobClient, topic string, n int) {
	t.Helper()
	for {
		got := len(read(t, c, topic, true))
		if got >= n {
			return
		}
		select {
		case <-job.Done():
			_, err := job.Wait()
			t.Fatalf("the job ended with %d of %d records committed to %s: %v", got, n, topic, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// End-to-end exactly-once, Kafka to Kafka: a job reads a topic of four
// partitions, counts each key's records in keyed state and writes the
// counts through the exactly-once sink. It fails once at parallelism 2,
// is stopped with a savepoint, resumes at parallelism 3 from it (with
// records written in between) and fails once again. A read_committed
// consumer of the output sees every input record exactly once, with the
// count it had in sequence; a read_uncommitted one sees those and the
// failed attempts' aborted records (logged: how many depends on timing).
func TestEndToEndExactlyOnce(t *testing.T) {
	const partitions = 4
	c := startCluster(t, partitions, "in")
	createTopic(t, c, "out", 3)
	ctx := testContext(t)

	// Run 1, parallelism 2: half of its input is there before it starts;
	// the record it fails at comes after a checkpoint holds offsets of
	// every partition.
	produce(t, c, "in", partitions, 0, 200, nil)
	job, err := e2eJob(t, c, "in", "out", &sequence.Record{Key: "k3", Seq: 35}, weir.WithParallelism(2)).ExecuteAsync(ctx, "e2e-p2")
	if err != nil {
		t.Fatal(err)
	}
	awaitTopic(t, c, job, "out", 200)
	produce(t, c, "in", partitions, 200, 200, nil)
	awaitTopic(t, c, job, "out", 400)
	sp, err := job.StopWithSavepoint(ctx, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := job.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 1 {
		t.Errorf("run 1: restarts = %d, want 1", res.Restarts)
	}

	// Between the runs, more input; run 2, parallelism 3, from the
	// savepoint, fails at one of those records.
	produce(t, c, "in", partitions, 400, 240, nil)
	const total = 640
	job, err = e2eJob(t, c, "in", "out", &sequence.Record{Key: "k6", Seq: 70}, weir.WithParallelism(3),
		weir.WithRestoreFrom(sp, false)).ExecuteAsync(ctx, "e2e-p3")
	if err != nil {
		t.Fatal(err)
	}
	awaitTopic(t, c, job, "out", total)
	if _, err := job.StopWithSavepoint(ctx, t.TempDir(), true); err != nil {
		t.Fatal(err)
	}
	if res, err = job.Wait(); err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 1 {
		t.Errorf("run 2: restarts = %d, want 1", res.Restarts)
	}

	committed := read(t, c, "out", true)
	if err := sequence.Verify(sequence.Config{Keys: e2eKeys, RecordsPerKey: total / e2eKeys}, committed); err != nil {
		t.Fatalf("read_committed: %v", err)
	}
	aborted, err := subtract(read(t, c, "out", false), committed)
	if err != nil {
		t.Fatalf("read_uncommitted: %v", err)
	}
	t.Logf("read_committed: %d records, each input record once; read_uncommitted: %d more, of aborted transactions", len(committed), len(aborted))
}
