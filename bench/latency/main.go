// Command latency measures Weir's end-to-end latency: the time from the
// moment a source emits a record to the moment the sink receives its
// result, as p50/p99/p99.9 percentiles, for two jobs on the embedded
// mini-cluster, at fractions of each job's maximum throughput (measured
// first, unthrottled, with the default buffer timeout), and with several
// network buffer timeouts:
//
//	go run ./bench/latency                      # the full table
//	go run ./bench/latency -duration 2s -loads 0.5
//
// The jobs:
//
//   - stateless: a generator (parallelism 1) -> rebalance -> map ->
//     filter -> sink, so every record crosses the network once. A record's
//     latency is the sink's receive time minus its emit time.
//   - windowed: a generator -> keyBy -> tumbling processing-time window
//     reduce -> sink. A window result's latency is the sink's receive time
//     minus the emit time of the last element the window holds, the
//     definition of the Yahoo streaming benchmark up to where the clock
//     starts (it starts at the window's end; here at the last element,
//     which also counts the time the element spent reaching the window).
//
// The generator stamps each record with the time it creates it, just
// before it emits it; the tasks run in this process, so emit and receive
// times come from one monotonic clock. Records emitted during the warm-up
// are not counted. The machine's load average is printed with each run:
// on a shared machine the figures move with it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weir-engine/weir"
)

func main() {
	var c config
	flag.DurationVar(&c.duration, "duration", 3*time.Second, "measured time of each run, after the warm-up")
	flag.DurationVar(&c.warmup, "warmup", time.Second, "time of each run whose records are not counted")
	flag.Int64Var(&c.maxRecords, "max-records", 3_000_000, "records of the unthrottled run that measures the maximum throughput")
	flag.IntVar(&c.keys, "keys", 1000, "keys of the windowed job")
	flag.DurationVar(&c.window, "window", 100*time.Millisecond, "window size of the windowed job")
	jobs := flag.String("jobs", "stateless,windowed", "jobs to run")
	loads := flag.String("loads", "0.5,0.9", "fractions of the maximum throughput to run at")
	timeouts := flag.String("timeouts", "default,1ms,0", "buffer timeouts (default: the engine's, 100ms; 0: flush after every record)")
	flag.Parse()
	if err := c.parse(*jobs, *loads, *timeouts); err != nil {
		fmt.Fprintln(os.Stderr, "latency:", err)
		os.Exit(2)
	}
	if err := c.run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "latency:", err)
		os.Exit(1)
	}
}

type config struct {
	duration, warmup time.Duration
	maxRecords       int64
	keys             int
	window           time.Duration
	jobs             []job
	loads            []float64
	timeouts         []timeout
}

// A timeout is a buffer timeout to run with; set is false for the default.
type timeout struct {
	name string
	d    time.Duration
	set  bool
}

func (c *config) parse(jobs, loads, timeouts string) error {
	for _, name := range strings.Split(jobs, ",") {
		j, ok := jobsByName[name]
		if !ok {
			return fmt.Errorf("-jobs: unknown job %q (want stateless or windowed)", name)
		}
		c.jobs = append(c.jobs, j)
	}
	for _, s := range strings.Split(loads, ",") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 || f > 1 {
			return fmt.Errorf("-loads: %q is not a fraction in (0, 1]", s)
		}
		c.loads = append(c.loads, f)
	}
	for _, s := range strings.Split(timeouts, ",") {
		if s == "default" {
			c.timeouts = append(c.timeouts, timeout{name: "default (100ms)"})
			continue
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return fmt.Errorf("-timeouts: %q is not default or a duration >= 0", s)
		}
		name := d.String()
		if d == 0 {
			name = "0 (flush always)"
		}
		c.timeouts = append(c.timeouts, timeout{name: name, d: d, set: true})
	}
	if c.duration <= 0 || c.warmup < 0 || c.maxRecords <= 0 || c.keys <= 0 || c.window <= 0 {
		return fmt.Errorf("-duration, -max-records, -keys and -window must be positive, -warmup not negative")
	}
	return nil
}

// run prints the table: per job, its maximum throughput, then a row per
// load and buffer timeout.
func (c *config) run(ctx context.Context, out io.Writer) error {
	fmt.Fprintf(out, "%-9s %-5s %-17s %12s %12s %10s %10s %10s %10s %8s  %s\n",
		"job", "load", "buffer timeout", "rate/s", "achieved/s", "p50", "p99", "p99.9", "max", "samples", "load average")
	for _, j := range c.jobs {
		maxRate, err := c.maxThroughput(ctx, j)
		if err != nil {
			return fmt.Errorf("%s: maximum throughput: %w", j.name, err)
		}
		fmt.Fprintf(out, "%-9s %-5s %-17s %12.0f %12.0f %10s %10s %10s %10s %8s  %s\n", j.name, "max", "default (100ms)", maxRate, maxRate, "", "", "", "", "", loadAverage())
		for _, load := range c.loads {
			for _, to := range c.timeouts {
				rate := load * maxRate
				h, achieved, err := c.measure(ctx, j, rate, to)
				if err != nil {
					return fmt.Errorf("%s at %.0f records/s, buffer timeout %s: %w", j.name, rate, to.name, err)
				}
				fmt.Fprintf(out, "%-9s %-5s %-17s %12.0f %12.0f %10s %10s %10s %10s %8d  %s\n", j.name, fmt.Sprintf("%.0f%%", load*100), to.name, rate, achieved,
					ms(h.quantile(0.5)), ms(h.quantile(0.99)), ms(h.quantile(0.999)), ms(time.Duration(h.max)), h.n, loadAverage())
			}
		}
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond)) }

// maxThroughput runs j unthrottled on maxRecords records and returns the
// records per second.
func (c *config) maxThroughput(ctx context.Context, j job) (float64, error) {
	start := time.Now()
	if _, _, err := c.execute(ctx, j, run{count: c.maxRecords}); err != nil {
		return 0, err
	}
	return float64(c.maxRecords) / time.Since(start).Seconds(), nil
}

// measure runs j at rate for the warm-up and the duration and returns the
// latencies of the records (or window results) after the warm-up, and the
// rate the source achieved after the warm-up (lower than rate when the job
// cannot keep up, e.g. when flushing after every record).
func (c *config) measure(ctx context.Context, j job, rate float64, to timeout) (*histogram, float64, error) {
	count := int64(rate * (c.warmup + c.duration).Seconds())
	return c.execute(ctx, j, run{count: count, rate: rate, warmup: int64(rate * c.warmup.Seconds()), timeout: to})
}

// run is one execution of a job.
type run struct {
	count, warmup int64
	rate          float64
	timeout       timeout
}

// execute runs j as r says and returns the latencies after the warm-up and
// the source's achieved rate from the first record after the warm-up to
// the last.
func (c *config) execute(ctx context.Context, j job, r run) (*histogram, float64, error) {
	opts := []weir.Option{weir.WithParallelism(1)}
	if r.timeout.set {
		opts = append(opts, weir.WithBufferTimeout(r.timeout.d))
	}
	env := weir.NewEnv(opts...)
	rec := &recorder{warmup: r.warmup}
	// The generator runs at parallelism 1, in one goroutine; the job's end
	// orders these writes before the reads below.
	var first, last int64
	src := weir.Generate(env, weir.Generator[event]{Count: r.count, RatePerSecond: r.rate, Fn: func(i int64) (event, error) {
		e := event{Key: i % int64(c.keys), Seq: i, Emitted: now()}
		switch i {
		case r.warmup:
			first = e.Emitted
		case r.count - 1:
			last = e.Emitted
		}
		return e, nil
	}})
	if err := j.build(c, src, rec); err != nil {
		return nil, 0, err
	}
	if _, err := env.Execute(ctx, "latency-"+j.name); err != nil {
		return nil, 0, err
	}
	achieved := 0.0
	if last > first {
		achieved = float64(r.count-1-r.warmup) / time.Duration(last-first).Seconds()
	}
	return rec.result(), achieved, j.check(c, r, rec)
}

// An event is what the generator emits: its key, its index and the time it
// was created (see now).
type event struct {
	Key, Seq int64
	Emitted  int64
}

var epoch = time.Now()

// now is the monotonic time since the program started, in nanoseconds.
func now() int64 { return int64(time.Since(epoch)) }

// A recorder collects the latencies the sink's subtasks see.
type recorder struct {
	warmup int64
	mu     sync.Mutex
	h      histogram
	got    int64
}

// receive records the latency of a result whose last input is e.
func (r *recorder) receive(e event) {
	d := time.Duration(now() - e.Emitted)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got++
	if e.Seq >= r.warmup {
		r.h.record(d)
	}
}

func (r *recorder) result() *histogram {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &r.h
}

func (r *recorder) received() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got
}

// A job builds the operators between the generator and the recording
// sink, and checks what the sink received.
type job struct {
	name  string
	build func(c *config, src weir.DataStream[event], rec *recorder) error
	check func(c *config, r run, rec *recorder) error
}

var jobsByName = map[string]job{
	"stateless": {name: "stateless", build: buildStateless, check: checkStateless},
	"windowed":  {name: "windowed", build: buildWindowed, check: checkWindowed},
}

// keep drops one record in ten.
func keep(e event) bool { return e.Seq%10 != 9 }

func buildStateless(_ *config, src weir.DataStream[event], rec *recorder) error {
	mapped := weir.Map(src.Rebalance(), func(e event) (event, error) { e.Key *= 2; return e, nil })
	filtered := weir.Filter(mapped, func(e event) (bool, error) { return keep(e), nil })
	weir.AddSink(filtered, func(e event) error { rec.receive(e); return nil })
	return nil
}

func checkStateless(_ *config, r run, rec *recorder) error {
	want := r.count - r.count/10
	if got := rec.received(); got != want {
		return fmt.Errorf("the sink received %d records, want %d", got, want)
	}
	return nil
}

// buildWindowed keeps, per key and window, the element emitted last.
func buildWindowed(c *config, src weir.DataStream[event], rec *recorder) error {
	keyed := weir.KeyBy(src, func(e event) int64 { return e.Key })
	last := weir.WindowReduce(weir.Window(keyed, weir.TumblingProcessingTimeWindows(c.window)), func(a, b event) (event, error) {
		if b.Emitted > a.Emitted {
			return b, nil
		}
		return a, nil
	})
	weir.AddSink(last, func(e event) error { rec.receive(e); return nil })
	return nil
}

// checkWindowed checks that results arrived: processing-time windows
// still open when the input ends never fire (as in Flink), so their number
// is not exact.
func checkWindowed(c *config, r run, rec *recorder) error {
	if r.rate > 0 && rec.received() == 0 {
		return fmt.Errorf("the sink received no window results from %d records", r.count)
	}
	return nil
}

// loadAverage is the 1-minute load average, or "?" where /proc/loadavg
// cannot be read.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		slog.Debug("no load average", "err", err)
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
