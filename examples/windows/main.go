// Command windows is the second stop of a tour of Weir: event time and
// windows. A generator produces purchases with event timestamps that are
// slightly out of order; the job sums the amount per user in sliding
// event-time windows and prints one line per user and window:
//
//	user=ada window=[0s,2s) purchases=66 total=3303
//
//	go run ./examples/windows
//	go run ./examples/windows -events 20000 -rate 10000
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/weir-engine/weir"
)

// Purchase is an event: who bought, how much, and when (event time, in
// milliseconds).
type Purchase struct {
	User   string
	Amount int64
	Time   int64
}

var users = []string{"ada", "bob", "cyd", "dee"}

// purchase is element i of the generator. It must be deterministic in i (a
// restored job generates the same i again). Purchases are 10ms apart, but
// each is shifted by up to 49ms, so they arrive out of order.
func purchase(i int64) Purchase {
	return Purchase{
		User:   users[(i*7+i/3)%int64(len(users))],
		Amount: 1 + (i*37)%100,
		Time:   i*10 + (i*31)%50,
	}
}

// Window geometry: two-second windows starting every second, so each
// purchase counts in two windows. The watermark trails the largest time
// seen by maxDelay, which covers the 49ms of disorder: no purchase is late.
const (
	size     = 2 * time.Second
	slide    = time.Second
	maxDelay = 50 * time.Millisecond
)

func main() {
	events := flag.Int64("events", 5000, "number of purchases")
	rate := flag.Float64("rate", 20000, "purchases per second")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *events, *rate); err != nil {
		fmt.Fprintln(os.Stderr, "windows:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stdout io.Writer, events int64, rate float64) error {
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithStdout(stdout))

	// Generate is a source of purchase(0), purchase(1), ... at the given
	// rate (over all subtasks); with a Count it is bounded and the job
	// ends.
	purchases := weir.Generate(env, weir.Generator[Purchase]{Fn: func(i int64) (Purchase, error) {
		return purchase(i), nil
	}, Count: events, RatePerSecond: rate})

	// Event time: every purchase gets its timestamp from its Time field,
	// and watermarks say "no purchase older than this will come".
	timed := weir.AssignTimestampsAndWatermarks(purchases,
		weir.BoundedOutOfOrderness(maxDelay, func(p Purchase) int64 { return p.Time }))

	// Windows per user: a window fires once the watermark passes its end.
	windowed := weir.Window(weir.KeyBy(timed, func(p Purchase) string { return p.User }),
		weir.SlidingEventTimeWindows(size, slide))

	// WindowAggregateWith folds each window's purchases into an
	// accumulator (sumCount below) and formats the result with the key
	// and the window.
	lines := weir.WindowAggregateWith(windowed, weir.AggregateFunction[Purchase, Totals, Totals](sumCount{}),
		func(user string, w weir.TimeWindow, t Totals) (string, error) {
			return fmt.Sprintf("user=%s window=[%v,%v) purchases=%d total=%d",
				user, time.Duration(w.Start)*time.Millisecond, time.Duration(w.End)*time.Millisecond, t.Count, t.Sum), nil
		})

	weir.Print(lines).SetParallelism(1)
	_, err := env.Execute(ctx, "windows example")
	return err
}

// Totals is the accumulator of a window: the number of purchases and the
// sum of their amounts.
type Totals struct {
	Count, Sum int64
}

// sumCount is the AggregateFunction: it keeps no state of its own (the
// accumulators live in the window operator's keyed state).
type sumCount struct{}

func (sumCount) CreateAccumulator() Totals { return Totals{} }

func (sumCount) Add(p Purchase, t Totals) (Totals, error) {
	return Totals{Count: t.Count + 1, Sum: t.Sum + p.Amount}, nil
}

func (sumCount) GetResult(t Totals) (Totals, error) { return t, nil }
