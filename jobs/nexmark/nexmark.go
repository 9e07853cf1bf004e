// Package nexmark is the built-in `nexmark` job of DESIGN.md:
//
//	weir run nexmark --query qN --events E [--rate R] [--seed S]
//
// It runs one Nexmark query of package bench/nexmark/queries over E
// generated events and prints one line to the Env's standard output:
//
//	qN: E events in D (X events/s), R results
//
// The events can go through Kafka instead:
//
//	weir run nexmark --produce-to kafka --kafka-brokers B --topic T --events E [--rate R] [--seed S] [--partitions N]
//	weir run nexmark --source kafka --kafka-brokers B --topic T --query qN
//
// The first writes the generated events to topic T (created with N
// partitions, default 4, unless it exists), JSON-encoded, and ends; the
// second reads the topic, bounded (up to the offsets that are the latest
// when it starts), and runs the query; E is then the number of records in
// the topic when the job was built.
//
// A job builder cannot run code after Execute, so the line comes from the
// job itself: each subtask of the query's last stage counts its results in
// a chained stage (also in the job-wide counter "nexmark-results", reported
// in Result.Accumulators) and sends its count, at the end of its input, to a
// sink of parallelism 1, which adds up the counts and prints the line in
// its Finish hook, called once all input has been processed. D runs from
// the start of the job's tasks to the end of input, and leaves out the
// job's deployment and shutdown: a clock source of one record, scheduled
// with the query's sources, sends the sink the time it ran, and the sink
// takes the earlier of that and its own start. (In batch mode the sink
// starts only once the query's last stage has finished, and its own clock
// alone gave a D near 0.)
package nexmark

import (
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/weir-engine/weir"
	benchnexmark "github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/queries"
)

// Name and Description register the job.
const (
	Name        = "nexmark"
	Description = "--query qN --events E [--rate R] [--seed S] [--source kafka --kafka-brokers B --topic T]: a Nexmark query; prints events/s; " +
		"--produce-to kafka --kafka-brokers B --topic T --events E: writes the events to Kafka"
)

// ResultsCounter is the job-wide counter of the query's results.
const ResultsCounter = "nexmark-results"

// builders adds a query with its counting sink; the result type differs
// per query, so each is a closure over the generic sink.
var builders = map[string]func(events weir.DataStream[benchnexmark.Event], s *report){
	"q0": func(ev weir.DataStream[benchnexmark.Event], s *report) { countInto(queries.Q0Of(ev), s) },
	"q1": func(ev weir.DataStream[benchnexmark.Event], s *report) { countInto(queries.Q1Of(ev), s) },
	"q2": func(ev weir.DataStream[benchnexmark.Event], s *report) { countInto(queries.Q2Of(ev), s) },
	"q3": func(ev weir.DataStream[benchnexmark.Event], s *report) { countInto(queries.Q3Of(ev), s) },
	"q4": func(ev weir.DataStream[benchnexmark.Event], s *report) { countInto(queries.Q4Of(ev), s) },
	"q5": func(ev weir.DataStream[benchnexmark.Event], s *report) { countInto(queries.Q5Of(ev), s) },
	"q7": func(ev weir.DataStream[benchnexmark.Event], s *report) { countInto(queries.Q7Of(ev), s) },
	"q8": func(ev weir.DataStream[benchnexmark.Event], s *report) { countInto(queries.Q8Of(ev), s) },
}

// Queries returns the names of the queries the job runs, sorted.
func Queries() []string {
	names := make([]string, 0, len(builders))
	for n := range builders {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Job is the builder for weir.RegisterJob.
func Job(env *weir.Env, args []string) error {
	var f flags
	if err := f.parse(args); err != nil {
		return err
	}
	cfg := benchnexmark.DefaultConfig()
	cfg.NumEvents, cfg.Seed = f.events, f.seed
	if f.produceTo != "" {
		if err := cfg.Validate(); err != nil {
			return err
		}
		if err := ensureTopic(f.brokers, f.topic, f.partitions); err != nil {
			return err
		}
		return ProduceToKafka(env, cfg, f.rate, f.brokers, f.topic)
	}
	var src weir.DataStream[benchnexmark.Event]
	if f.source == "kafka" {
		n, err := topicRecords(f.brokers, f.topic)
		if err != nil {
			return err
		}
		cfg.NumEvents = n
		if src, err = KafkaSource(env, cfg, f.brokers, f.topic); err != nil {
			return err
		}
	} else {
		if err := cfg.Validate(); err != nil {
			return err
		}
		src = queries.Source(env, cfg, queries.SourceOptions{Rate: f.rate})
	}
	builders[f.query](src, &report{Query: f.query, Events: cfg.NumEvents, Out: env.Options().Stdout})
	return env.Err()
}

// report is the counting sink's configuration and its running total.
type report struct {
	Query  string
	Events int64
	Out    io.Writer

	start   time.Time
	results int64
}

// tally is what the reporting sink adds up: the result count of a subtask
// of the query's last stage, or the start time the clock source sends.
type tally struct {
	// Results is a subtask's count of results.
	Results int64
	// Start is when the clock source ran, in Unix nanoseconds; 0 in a
	// count.
	Start int64
}

// countInto counts s's results where they are produced and ends in a
// reporting sink of parallelism 1 that adds up the counts and reports r.
// Counting is two-phase, as Flink pre-aggregates locally before a global
// step: a chained stage at the query's parallelism counts its subtask's
// results and sends one count at the end of its input (the final
// watermark), so a query whose results are as many as its events (q1 emits
// one row per bid) does not ship every result to a single subtask. Both
// counts are operator state: a job restored from a checkpoint counts every
// result once.
func countInto[R any](s weir.DataStream[R], r *report) {
	counts := weir.ProcessStream(s, weir.ProcessFunction[R, tally](&localCount[R]{})).Name("nexmark-local-count")
	clock := weir.Generate(s.Env(), weir.Generator[tally]{Count: 1, Fn: func(int64) (tally, error) {
		return tally{Start: time.Now().UnixNano()}, nil
	}}).Name("nexmark-clock").SetParallelism(1)
	// Both go through an exchange: chained to the sink, the clock would
	// wait with it for the query in batch mode.
	weir.AddSinkWith[tally](weir.Union(counts.Global(), clock.Global()), &countSink{report: *r}).Name("nexmark-count").SetParallelism(1)
}

// localCount counts its subtask's results and emits the count at the end
// of its input, adding it to the job-wide counter ResultsCounter. Emitting
// resets the count: what was sent is the sink's, and a final watermark
// seen again after a restore sends nothing twice.
type localCount[R any] struct {
	n       int64
	counter *weir.Counter
	state   weir.ListState[int64]
}

// InitializeState restores the count a checkpoint held.
func (c *localCount[R]) InitializeState(ctx *weir.StateInitializationContext) (err error) {
	c.n, c.state, err = restoreCount(ctx, "nexmark-local-count")
	return err
}

// SnapshotState stores the count.
func (c *localCount[R]) SnapshotState(weir.StateSnapshotContext) error {
	c.state.Update([]int64{c.n})
	return nil
}

// Open registers the counter.
func (c *localCount[R]) Open(rc *weir.RuntimeContext) error {
	c.counter = rc.Counter(ResultsCounter)
	return nil
}

// ProcessElement counts one result.
func (c *localCount[R]) ProcessElement(*weir.ProcessContext[tally], R) error {
	c.n++
	return nil
}

// OnWatermark emits the count at the end of the input.
func (c *localCount[R]) OnWatermark(ctx *weir.ProcessContext[tally], wm int64) error {
	if wm == math.MaxInt64 && c.n > 0 {
		c.counter.Add(c.n)
		ctx.Collect(tally{Results: c.n})
		c.n = 0
	}
	return nil
}

// restoreCount registers the operator list state name and adds up what it
// restored to this subtask.
func restoreCount(ctx *weir.StateInitializationContext, name string) (int64, weir.ListState[int64], error) {
	st, err := weir.GetOperatorListState[int64](ctx, name)
	if err != nil {
		return 0, nil, err
	}
	var n int64
	for _, v := range st.Get() {
		n += v
	}
	return n, st, nil
}

// countSink adds up the subtasks' counts and notes the clock source's
// start, both kept as operator state, and prints the report line in
// Finish.
type countSink struct {
	report
	state weir.ListState[int64]
	// started is the clock source's start time (Unix nanoseconds; 0 before
	// it came), kept in startState.
	started    int64
	startState weir.ListState[int64]
}

// InitializeState restores the total and the start a checkpoint held.
func (c *countSink) InitializeState(ctx *weir.StateInitializationContext) (err error) {
	if c.results, c.state, err = restoreCount(ctx, "nexmark-count"); err != nil {
		return err
	}
	if c.startState, err = weir.GetOperatorListState[int64](ctx, "nexmark-start"); err != nil {
		return err
	}
	for _, t := range c.startState.Get() {
		c.noteStart(t)
	}
	return nil
}

// SnapshotState stores the total and the start.
func (c *countSink) SnapshotState(weir.StateSnapshotContext) error {
	c.state.Update([]int64{c.results})
	if c.started != 0 {
		c.startState.Update([]int64{c.started})
	}
	return nil
}

// Open notes the sink's own start, the report's start unless the clock
// source's is earlier.
func (c *countSink) Open(*weir.RuntimeContext) error {
	c.start = time.Now()
	return nil
}

// Invoke adds one subtask's count, or notes the clock source's start.
func (c *countSink) Invoke(t tally) error {
	c.results += t.Results
	c.noteStart(t.Start)
	return nil
}

// noteStart keeps the earliest start time t (0: none) seen.
func (c *countSink) noteStart(t int64) {
	if t != 0 && (c.started == 0 || t < c.started) {
		c.started = t
	}
}

// Finish prints the report line.
func (c *countSink) Finish() error {
	start := c.start
	if c.started != 0 && time.Unix(0, c.started).Before(start) {
		start = time.Unix(0, c.started)
	}
	d := time.Since(start)
	_, err := fmt.Fprintf(c.Out, "%s: %d events in %v (%.0f events/s), %d results\n",
		c.Query, c.Events, d.Round(time.Millisecond), float64(c.Events)/d.Seconds(), c.results)
	return err
}
