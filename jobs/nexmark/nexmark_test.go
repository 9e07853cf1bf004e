package nexmark_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	benchnexmark "github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/queries"
	"github.com/weir-engine/weir/bench/nexmark/reference"
	"github.com/weir-engine/weir/jobs/nexmark"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// referenceCount is the number of results the reference gives for a query
// over the job's default stream of n events.
func referenceCount(query string, n int64) int {
	cfg := benchnexmark.DefaultConfig()
	cfg.NumEvents = n
	ev := benchnexmark.NewGenerator(cfg).All()
	switch query {
	case "q0":
		return 1
	case "q1":
		return len(reference.Q1(ev))
	case "q2":
		return len(reference.Q2(ev))
	case "q3":
		return len(reference.Q3(ev))
	case "q4":
		return len(reference.Q4(ev))
	case "q5":
		return len(reference.Q5(ev))
	case "q7":
		return len(reference.Q7(ev))
	case "q8":
		return len(reference.Q8(ev))
	}
	panic(query)
}

var line = regexp.MustCompile(`^(q\d): (\d+) events in \S+ \((\d+) events/s\), (\d+) results\n$`)

func TestJobPrintsEventsPerSecond(t *testing.T) {
	const events = 20_000
	for _, q := range nexmark.Queries() {
		t.Run(q, func(t *testing.T) {
			var out bytes.Buffer
			env := weir.NewEnv(weir.WithParallelism(2), weir.WithStdout(&out))
			if err := nexmark.Job(env, []string{"--query", q, "--events", strconv.Itoa(events)}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := env.Execute(ctx, "nexmark")
			if err != nil {
				t.Fatal(err)
			}
			m := line.FindStringSubmatch(out.String())
			if m == nil {
				t.Fatalf("output %q does not match %v", out.String(), line)
			}
			want := referenceCount(q, events)
			if m[1] != q || m[2] != strconv.Itoa(events) || m[4] != strconv.Itoa(want) {
				t.Fatalf("output %q, want %s with %d events and %d results", out.String(), q, events, want)
			}
			if got := res.Accumulators[nexmark.ResultsCounter]; got != int64(want) {
				t.Fatalf("counter %s = %d, want %d", nexmark.ResultsCounter, got, want)
			}
		})
	}
}

func TestJobRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--query", "q6", "--events", "10"},
		{"--query", "q1"},
		{"--query", "q1", "--events", "-5"},
		{"--query", "q1", "--events", "10", "--rate", "-1"},
		{"--query", "q1", "--events", "10", "extra"},
		{"--nope"},
		{"--source", "file", "--query", "q1", "--events", "10"},
		{"--source", "kafka", "--query", "q1"},
		{"--source", "kafka", "--kafka-brokers", "127.0.0.1:1", "--topic", "t", "--query", "q1", "--events", "10"},
		{"--source", "kafka", "--kafka-brokers", "127.0.0.1:1", "--topic", "t", "--query", "q6"},
		{"--query", "q1", "--events", "10", "--topic", "t"},
		{"--produce-to", "kafka", "--events", "10"},
		{"--produce-to", "s3", "--kafka-brokers", "127.0.0.1:1", "--topic", "t", "--events", "10"},
		{"--produce-to", "kafka", "--kafka-brokers", "127.0.0.1:1", "--topic", "t", "--events", "10", "--query", "q1"},
		{"--produce-to", "kafka", "--kafka-brokers", "127.0.0.1:1", "--topic", "t"},
		{"--produce-to", "kafka", "--kafka-brokers", "127.0.0.1:1", "--topic", "t", "--events", "10", "--partitions", "0"},
	} {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			if err := nexmark.Job(weir.NewEnv(), args); err == nil {
				t.Fatalf("Job(%q) accepted", args)
			}
		})
	}
}

func TestRateLimits(t *testing.T) {
	var out bytes.Buffer
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithStdout(&out))
	if err := nexmark.Job(env, []string{"--query", "q1", "--events", "2000", "--rate", "10000"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := env.Execute(context.Background(), "nexmark"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("2000 events at 10000/s took %v, want about 200ms", d)
	}
}

// The report's time covers the query in batch mode too, where the
// reporting sink starts only after the query's last stage has finished:
// 2000 events at 10000/s take 200 ms.
func TestBatchReportCoversTheQuery(t *testing.T) {
	var out bytes.Buffer
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithStdout(&out), weir.WithMode(weir.Batch))
	if err := nexmark.Job(env, []string{"--query", "q5", "--events", "2000", "--rate", "10000"}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Execute(context.Background(), "nexmark"); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^q5: 2000 events in (\S+) `).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("output %q is not the report line", out.String())
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if d < 150*time.Millisecond {
		t.Fatalf("reported %v for 2000 events at 10000/s, want at least the 200 ms the source took: %q", d, out.String())
	}
}

// TestResultsAreCountedWhereTheyAreProduced checks the plan of the per-bid
// queries at parallelism 2: their results are counted in the subtask that
// produces them, so the only records that cross between tasks are the two
// subtasks' counts and the clock source's start, not one record per
// result.
func TestResultsAreCountedWhereTheyAreProduced(t *testing.T) {
	const events = 2*queries.BlockEvents + 1000 // events for both subtasks
	for _, q := range []string{"q1", "q2"} {
		t.Run(q, func(t *testing.T) {
			var out bytes.Buffer
			env := weir.NewEnv(weir.WithParallelism(2), weir.WithStdout(&out))
			if err := nexmark.Job(env, []string{"--query", q, "--events", strconv.Itoa(events)}); err != nil {
				t.Fatal(err)
			}
			res, err := env.Execute(context.Background(), "nexmark")
			if err != nil {
				t.Fatal(err)
			}
			var sent int64
			for _, v := range res.Vertices {
				sent += v.RecordsOut
			}
			if want := referenceCount(q, events); res.Accumulators[nexmark.ResultsCounter] != int64(want) {
				t.Fatalf("counter %s = %d, want %d", nexmark.ResultsCounter, res.Accumulators[nexmark.ResultsCounter], want)
			}
			if sent != 3 {
				t.Fatalf("%d records sent between tasks, want 3 (one count per subtask, the start); vertices %+v", sent, res.Vertices)
			}
		})
	}
}
