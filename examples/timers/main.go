// Command timers is the third stop of a tour of Weir: a keyed process
// function with state and both kinds of timers. It cuts each user's clicks
// into sessions that end when the user has been quiet for a gap of event
// time, and raises an alert when a session is still open after a while of
// wall-clock time:
//
//	session user=ada start=8000ms end=10900ms clicks=20
//	alert user=bob: session since 16000ms still open after 10ms of processing time
//
// Event-time timers fire when the watermark passes them: they make results
// that depend only on the data, the same on every run. Processing-time
// timers fire by the wall clock: good for timeouts and alerts, but their
// output depends on how fast the job runs.
//
//	go run ./examples/timers
//	go run ./examples/timers -clicks 3000 -rate 2000
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

// Click is an event: a user clicked at Time (event time, milliseconds).
type Click struct {
	User string
	Time int64
}

// click is element i of the generator: bursts of 30 clicks 100ms apart,
// one burst every 8s of event time; cyd sits out every other burst.
func click(i int64) Click {
	burst, j := i/30, i%30
	user := []string{"ada", "bob", "cyd"}[j%3]
	if user == "cyd" && burst%2 == 1 {
		user = "ada"
	}
	return Click{User: user, Time: burst*8000 + j*100}
}

// gap is how long a user must be quiet, in event time, for the session to
// end.
const gap = time.Second

func main() {
	clicks := flag.Int64("clicks", 600, "number of clicks")
	rate := flag.Float64("rate", 1000, "clicks per second")
	alertAfter := flag.Duration("alert-after", 20*time.Millisecond, "alert when a session is open this long in wall-clock time")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *clicks, *rate, *alertAfter); err != nil {
		fmt.Fprintln(os.Stderr, "timers:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stdout io.Writer, clicks int64, rate float64, alertAfter time.Duration) error {
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithStdout(stdout))

	// One source subtask, and one timestamp assigner chained to it, so
	// that each user's clicks stay in time order on their way to the
	// sessions operator. (With two assigner subtasks the clicks would be
	// dealt round-robin between them and could overtake each other.)
	source := weir.Generate(env, weir.Generator[Click]{
		Fn:    func(i int64) (Click, error) { return click(i), nil },
		Count: clicks, RatePerSecond: rate,
	}).SetParallelism(1)
	timed := weir.AssignTimestampsAndWatermarks(source,
		weir.MonotonousTimestamps(func(c Click) int64 { return c.Time })).SetParallelism(1)

	sessions := weir.Process(weir.KeyBy(timed, func(c Click) string { return c.User }),
		weir.KeyedProcessFunction[string, Click, string](&sessionizer{alertAfter: alertAfter.Milliseconds()}))

	weir.Print(sessions).SetParallelism(1)
	_, err := env.Execute(ctx, "timers example")
	return err
}

// Session is a user's open session, kept in keyed state.
type Session struct {
	Start, Last int64 // event times of the first and last click
	Clicks      int64
	AlertAt     int64 // the processing time of the alert timer, 0 if none
}

// sessionizer is the keyed process function. Fields set before the job
// (alertAfter) are shared by the subtasks' copies; Open sets the state
// handle in each copy.
type sessionizer struct {
	alertAfter int64 // milliseconds
	state      weir.ValueState[Session]
}

func (s *sessionizer) Open(rc *weir.KeyedRuntimeContext[string]) (err error) {
	s.state, err = weir.GetValueState[Session](rc, "session")
	return err
}

func (s *sessionizer) ProcessElement(ctx *weir.KeyedContext[string, string], c Click) error {
	timers := ctx.TimerService()
	sess, open := s.state.Value()
	if open && c.Time >= sess.Last+gap.Milliseconds() {
		// The gap has passed in event time, though the watermark saying
		// so has not arrived yet: the old session is over.
		s.close(ctx, sess)
		open = false
	}
	if open {
		// Move the end-of-session timer: the user is still active.
		timers.DeleteEventTimeTimer(sess.Last + gap.Milliseconds())
	} else {
		sess = Session{Start: c.Time}
		if s.alertAfter > 0 {
			sess.AlertAt = timers.CurrentProcessingTime() + s.alertAfter
			timers.RegisterProcessingTimeTimer(sess.AlertAt)
		}
	}
	sess.Last = c.Time
	sess.Clicks++
	timers.RegisterEventTimeTimer(sess.Last + gap.Milliseconds())
	s.state.Update(sess)
	return nil
}

// OnTimer is called for both kinds of timers; TimeDomain says which.
func (s *sessionizer) OnTimer(ctx *weir.KeyedContext[string, string], ts int64) error {
	sess, open := s.state.Value()
	if !open {
		return nil
	}
	switch ctx.TimeDomain() {
	case weir.EventTime:
		// The watermark passed Last+gap: no click of this session can
		// come any more.
		s.close(ctx, sess)
	case weir.ProcessingTime:
		if ts == sess.AlertAt {
			ctx.Collect(fmt.Sprintf("alert user=%s: session since %dms still open after %dms of processing time",
				ctx.Key(), sess.Start, s.alertAfter))
			sess.AlertAt = 0
			s.state.Update(sess)
		}
	}
	return nil
}

// close emits the session, drops its state and its pending timers.
func (s *sessionizer) close(ctx *weir.KeyedContext[string, string], sess Session) {
	ctx.Collect(fmt.Sprintf("session user=%s start=%dms end=%dms clicks=%d", ctx.Key(), sess.Start, sess.Last, sess.Clicks))
	ctx.TimerService().DeleteEventTimeTimer(sess.Last + gap.Milliseconds())
	if sess.AlertAt != 0 {
		ctx.TimerService().DeleteProcessingTimeTimer(sess.AlertAt)
	}
	s.state.Clear()
}
