package kafka_test

import (
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// collectAsync runs env with s going into a channel, and returns the job
// and the channel.
func collectAsync(t *testing.T, env *weir.Env, s weir.DataStream[string]) (*weir.JobClient, <-chan string) {
	t.Helper()
	ch := make(chan string, 1024)
	weir.AddSink(s, func(v string) error { ch <- v; return nil }).SetParallelism(1)
	job, err := env.ExecuteAsync(testContext(t), "collect")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Cancel(); _, _ = job.Wait() })
	return job, ch
}

// receive takes n values from ch, or fails when the job ends first.
func receive(t *testing.T, job *weir.JobClient, ch <-chan string, n int) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		select {
		case v := <-ch:
			got = append(got, v)
		case <-job.Done():
			_, err := job.Wait()
			t.Fatalf("the job ended after %d of %d values: %v", len(got), n, err)
		}
	}
	return got
}

// Partitions added to a topic while the job runs, and a new topic that
// matches the source's pattern, are found and read from their start: the
// records written into them before discovery found them are read too.
func TestPartitionDiscovery(t *testing.T) {
	c := startCluster(t, 2, "t")
	o := stringOptions(c)
	o.Topics, o.TopicPattern = nil, regexpMust("t|u")
	o.DiscoveryInterval = 300 * time.Millisecond
	env := weir.NewEnv(weir.WithParallelism(2))
	job, ch := collectAsync(t, env, source(t, env, o))
	first := produce(t, c, "t", 2, 0, 10, nil)
	sameSet(t, receive(t, job, ch, len(first)), first)
	// The job reads; now the topic grows to 5 partitions, and records
	// 1000.. land in all of them, and a topic that matches appears.
	addPartitions(t, c, "t", 5)
	want := produce(t, c, "t", 5, 1000, 50, nil)
	createTopic(t, c, "u", 3)
	want = append(want, produce(t, c, "u", 3, 0, 30, nil)...)
	sameSet(t, receive(t, job, ch, len(want)), want)
}
