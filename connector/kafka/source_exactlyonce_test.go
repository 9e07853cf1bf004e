package kafka_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
	"github.com/weir-engine/weir/internal/kafkatest"
	"github.com/weir-engine/weir/jobs/sequence"
)

// failOnce fails the first attempt of the job when it meets the record
// with value at.
type failOnce struct {
	at      string
	attempt int
}

func (f *failOnce) Open(rc *weir.RuntimeContext) error { f.attempt = rc.Attempt; return nil }

func (f *failOnce) Map(v string) (string, error) {
	if f.attempt == 0 && v == f.at {
		return "", fmt.Errorf("failing at %s, as the test asked", v)
	}
	return v, nil
}

// fileJob reads topic into the exactly-once file sink under out.
func fileJob(t *testing.T, c *kafkatest.Cluster, topic, out string, fail string, opts ...weir.Option) *weir.Env {
	t.Helper()
	env := weir.NewEnv(opts...)
	o := stringOptions(c, topic)
	o.DiscoveryInterval = 20 * time.Millisecond
	o.GroupID = "g"
	s := source(t, env, o).UID("kafka-source")
	if fail != "" {
		s = weir.MapWith[string, string](s, &failOnce{at: fail}).UID("fail")
	}
	weir.SinkTo(s, file.NewSink(out, func(v string) string { return v })).UID("sink")
	return env
}

// committed reads the committed output of the file sink.
func committed(t *testing.T, dir string) []string {
	t.Helper()
	lines, err := sequence.CommittedLines(dir)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// awaitCommitted waits until at least n lines are committed under out, or
// fails the test when the job ends first.
func awaitCommitted(t *testing.T, c *weir.JobClient, out string, n int) {
	t.Helper()
	for len(committed(t, out)) < n {
		select {
		case <-c.Done():
			_, err := c.Wait()
			t.Fatalf("the job ended before %d lines were committed (%d): %v", n, len(committed(t, out)), err)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Records of a topic with several partitions reach the exactly-once file
// sink once each, through a failure and a restart from a checkpoint: the
// restored source resumes every partition at its checkpointed offset.
// The group's committed offsets follow the completed checkpoints.
func TestExactlyOnceThroughFailure(t *testing.T) {
	c := startCluster(t, 4, "t")
	out := t.TempDir()
	env := fileJob(t, c, "t", out, "t/350", weir.WithParallelism(2),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond}),
		weir.WithRestartStrategy(weir.FixedDelayRestart(3, 10*time.Millisecond)))
	ctx := testContext(t)
	job, err := env.ExecuteAsync(ctx, "kafka-exactly-once")
	if err != nil {
		t.Fatal(err)
	}
	// The first half is read and committed before the record that fails
	// the job is written, so the restart restores a checkpoint with
	// offsets in every partition.
	want := produce(t, c, "t", 4, 0, 200, nil)
	awaitCommitted(t, job, out, 200)
	want = append(want, produce(t, c, "t", 4, 200, 200, nil)...)
	awaitCommitted(t, job, out, len(want))
	if _, err := job.StopWithSavepoint(ctx, t.TempDir(), true); err != nil {
		t.Fatal(err)
	}
	res, err := job.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 1 {
		t.Errorf("restarts = %d, want 1", res.Restarts)
	}
	sameSet(t, committed(t, out), want)
	// The final savepoint's offsets were committed to the group: 100
	// records per partition.
	awaitGroupOffsets(t, c, "g", "t", 4, 100)
}

// awaitGroupOffsets waits until group committed offset want for each of
// the topic's partitions (commits are asynchronous).
func awaitGroupOffsets(t *testing.T, c *kafkatest.Cluster, group, topic string, partitions int, want int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx := testContext(t)
	for {
		offs, err := adm.FetchOffsets(ctx, group)
		if err != nil {
			t.Fatal(err)
		}
		ok := true
		for p := range int32(partitions) {
			if o, found := offs.Lookup(topic, p); !found || o.At != want {
				ok = false
			}
		}
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("group %s: offsets %v, want %d in each partition of %s", group, offs, want, topic)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// A job stopped with a savepoint at parallelism 2 resumes at 3: the
// partitions' splits are dealt out again and each record is committed
// once over both runs, those written while no job ran too.
func TestRescaleThroughSavepoint(t *testing.T) {
	c := startCluster(t, 6, "t")
	out := t.TempDir()
	ctx := testContext(t)
	cp := weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond})
	job, err := fileJob(t, c, "t", out, "", weir.WithParallelism(2), cp).ExecuteAsync(ctx, "p2")
	if err != nil {
		t.Fatal(err)
	}
	want := produce(t, c, "t", 6, 0, 300, nil)
	awaitCommitted(t, job, out, 100)
	sp, err := job.StopWithSavepoint(ctx, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Wait(); err != nil {
		t.Fatal(err)
	}
	want = append(want, produce(t, c, "t", 6, 300, 300, nil)...)
	job, err = fileJob(t, c, "t", out, "", weir.WithParallelism(3), cp, weir.WithRestoreFrom(sp, false)).ExecuteAsync(ctx, "p3")
	if err != nil {
		t.Fatal(err)
	}
	awaitCommitted(t, job, out, len(want))
	if _, err := job.StopWithSavepoint(ctx, t.TempDir(), true); err != nil {
		t.Fatal(err)
	}
	if _, err := job.Wait(); err != nil {
		t.Fatal(err)
	}
	sameSet(t, committed(t, out), want)
}
