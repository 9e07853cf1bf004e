package nexmark_test

import (
	"bytes"
	"context"
	"iter"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	benchnexmark "github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/queries"
	"github.com/weir-engine/weir/bench/nexmark/reference"
	"github.com/weir-engine/weir/internal/kafkatest"
	"github.com/weir-engine/weir/jobs/nexmark"
)

// runJob builds the nexmark job with args at parallelism 2, runs it and
// returns what it printed.
func runJob(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithStdout(&out))
	if err := nexmark.Job(env, args); err != nil {
		t.Fatalf("Job(%q): %v", args, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := env.Execute(ctx, "nexmark"); err != nil {
		t.Fatalf("run %q: %v", args, err)
	}
	return out.String()
}

// produced starts a cluster and writes events generated events to its
// topic "events" with `--produce-to kafka`.
func produced(t *testing.T, events int) *kafkatest.Cluster {
	t.Helper()
	c := kafkatest.Start(t)
	if out := runJob(t, "--produce-to", "kafka", "--kafka-brokers", c.BrokerList(), "--topic", "events",
		"--events", strconv.Itoa(events), "--partitions", "4"); out != "" {
		t.Fatalf("--produce-to printed %q", out)
	}
	return c
}

// `--produce-to kafka` then `--source kafka`: q0 and q1 read from the
// topic print the line of the generator's run, with the reference's count
// of results. The events/s of both runs are logged.
func TestKafkaSourcePrintsTheGeneratorsResults(t *testing.T) {
	const events = 20_000
	c := produced(t, events)
	for _, q := range []string{"q0", "q1"} {
		t.Run(q, func(t *testing.T) {
			fromKafka := runJob(t, "--source", "kafka", "--kafka-brokers", c.BrokerList(), "--topic", "events", "--query", q)
			generated := runJob(t, "--query", q, "--events", strconv.Itoa(events))
			for _, out := range []string{fromKafka, generated} {
				m := line.FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("output %q does not match %v", out, line)
				}
				if want := referenceCount(q, events); m[1] != q || m[2] != strconv.Itoa(events) || m[4] != strconv.Itoa(want) {
					t.Fatalf("output %q, want %s with %d events and %d results", out, q, events, want)
				}
			}
			t.Logf("from Kafka: %s", strings.TrimSpace(fromKafka))
			t.Logf("generated:  %s", strings.TrimSpace(generated))
		})
	}
}

// The events read back from Kafka give q0 (counts and checksum of every
// event) and q1 (every row) exactly as the reference over the generator's
// events does.
func TestKafkaSourceEqualsTheReference(t *testing.T) {
	const events = 10_000
	c := produced(t, events)
	cfg := benchnexmark.DefaultConfig()
	cfg.NumEvents = events
	gen := func() iter.Seq[benchnexmark.Event] { return benchnexmark.NewGenerator(cfg).All() }
	for _, tt := range []struct {
		name string
		run  func(context.Context, weir.DataStream[benchnexmark.Event]) (any, error)
		want any
	}{
		{"q0", func(ctx context.Context, ev weir.DataStream[benchnexmark.Event]) (any, error) {
			return weir.Collect(ctx, queries.Q0Of(ev))
		}, []reference.Q0Result{reference.Q0(gen())}},
		{"q1", func(ctx context.Context, ev weir.DataStream[benchnexmark.Event]) (any, error) {
			rows, err := weir.Collect(ctx, queries.Q1Of(ev))
			slices.SortFunc(rows, reference.CompareQ1)
			return rows, err
		}, reference.Q1(gen())},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := weir.NewEnv(weir.WithParallelism(2))
			ev, err := nexmark.KafkaSource(env, cfg, c.Brokers(), "events")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, err := tt.run(ctx, ev)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("from Kafka: %d rows, not those of the reference (%d rows)",
					reflect.ValueOf(got).Len(), reflect.ValueOf(tt.want).Len())
			}
		})
	}
}

// --source kafka with a topic that does not exist is an error when the
// job is built, naming the topic.
func TestKafkaSourceUnknownTopic(t *testing.T) {
	c := kafkatest.Start(t)
	err := nexmark.Job(weir.NewEnv(), []string{"--source", "kafka", "--kafka-brokers", c.BrokerList(), "--topic", "nope", "--query", "q0"})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("Job with an unknown topic: %v, want an error naming it", err)
	}
	t.Log(err)
}
