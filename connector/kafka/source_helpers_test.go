package kafka_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/kafka"
	"github.com/weir-engine/weir/internal/kafkatest"
	"go.uber.org/goleak"
)

// startCluster starts a kfake cluster with the given topics of partitions
// partitions each, and checks when the test ends that no goroutine was
// left behind (the cluster's, the source's clients and enumerators).
func startCluster(t *testing.T, partitions int, topics ...string) *kafkatest.Cluster {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	var opts []kfake.Opt
	if len(topics) > 0 {
		opts = append(opts, kfake.SeedTopics(int32(partitions), topics...))
	}
	return kafkatest.Start(t, opts...)
}

// testContext bounds a test's jobs.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// produce writes records into topic, record i with value "<topic>/<i>"
// into partition i mod partitions and timestamp ts(i) (ms) when ts is not
// nil, and returns their values. Records are numbered from first.
func produce(t *testing.T, c *kafkatest.Cluster, topic string, partitions, first, n int, ts func(i int) int64) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	var values []string
	for i := first; i < first+n; i++ {
		v := fmt.Sprintf("%s/%d", topic, i)
		r := &kgo.Record{Topic: topic, Partition: int32(i % partitions), Value: []byte(v), Key: []byte(fmt.Sprint(i))}
		if ts != nil {
			r.Timestamp = time.UnixMilli(ts(i))
		}
		recs = append(recs, r)
		values = append(values, v)
	}
	if err := cl.ProduceSync(testContext(t), recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	return values
}

// addPartitions grows topic to total partitions.
func addPartitions(t *testing.T, c *kafkatest.Cluster, topic string, total int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	resp, err := kadm.NewClient(cl).UpdatePartitions(testContext(t), total, topic)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("add partitions to %s: %v", topic, err)
	}
}

// createTopic creates topic with partitions partitions.
func createTopic(t *testing.T, c *kafkatest.Cluster, topic string, partitions int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	resp, err := kadm.NewClient(cl).CreateTopic(testContext(t), int32(partitions), 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
}

// commitOffset commits offset for topic's partition to group.
func commitOffset(t *testing.T, c *kafkatest.Cluster, group, topic string, partition int32, offset int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var offs kadm.Offsets
	offs.Add(kadm.Offset{Topic: topic, Partition: partition, At: offset, LeaderEpoch: -1})
	resp, err := kadm.NewClient(cl).CommitOffsets(testContext(t), group, offs)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("commit offsets: %v", err)
	}
}

// stringOptions are the options of a source of the records' values.
func stringOptions(c *kafkatest.Cluster, topics ...string) kafka.SourceOptions[string] {
	return kafka.SourceOptions[string]{
		Brokers: c.Brokers(), Topics: topics, RequestTimeout: 5 * time.Second,
		Deserializer: func(r *kafka.Record) (string, error) { return string(r.Value), nil },
	}
}

// source adds a source, failing the test on invalid options.
func source[T any](t *testing.T, env *weir.Env, o kafka.SourceOptions[T]) weir.DataStream[T] {
	t.Helper()
	s, err := kafka.Source(env, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sameSet fails unless got holds each of want exactly once.
func sameSet(t *testing.T, got, want []string) {
	t.Helper()
	got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if slices.Equal(got, want) {
		return
	}
	seen := map[string]int{}
	for _, g := range got {
		seen[g]++
	}
	var dup, missing []string
	for v, n := range seen {
		if n > 1 {
			dup = append(dup, fmt.Sprintf("%s x%d", v, n))
		}
	}
	for _, w := range want {
		if seen[w] == 0 {
			missing = append(missing, w)
		}
	}
	t.Fatalf("got %d records, want %d: duplicated %v, missing %s", len(got), len(want), dup, truncate(missing))
}

func truncate(s []string) string {
	if len(s) > 10 {
		return strings.Join(s[:10], " ") + fmt.Sprintf(" ... (%d)", len(s))
	}
	return strings.Join(s, " ")
}

func regexpMust(s string) *regexp.Regexp { return regexp.MustCompile(s) }
