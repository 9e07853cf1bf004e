package main_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// Session benchmark input: 2M clicks 0.1ms apart; in each block of
// sessionBlock clicks one half of the 10,000 users is active (each about
// every 500ms, within the 1s gap), so every user has one session per
// block it is active in, and every click extends its user's session.
const (
	sessionClicks = 2 << 20
	sessionBlock  = 200_000
	sessionUsers  = 10_000
	sessionGap    = time.Second
)

type sessionClick struct {
	User, TS, V int64
}

func genSessionClick(i int64) (sessionClick, error) {
	half := (i / sessionBlock) % 2
	return sessionClick{User: i%(sessionUsers/2) + half*sessionUsers/2, TS: i / 10, V: i % 7}, nil
}

// sessionResult is one session's user, window and sum.
type sessionResult struct {
	User       int64
	Start, End int64
	Sum        int64
}

// referenceSessionLoop is the hand-written program: clicks in time order,
// each user's open session in a map, a session emitted when a click comes
// a gap or more after its end, the open ones at the end.
func referenceSessionLoop(n int64, emit func(sessionResult)) {
	gap := sessionGap.Milliseconds()
	open := make(map[int64]*sessionResult)
	for i := range n {
		c, _ := genSessionClick(i)
		s := open[c.User]
		if s != nil && c.TS >= s.End {
			emit(*s)
			s = nil
		}
		if s == nil {
			s = &sessionResult{User: c.User, Start: c.TS}
			open[c.User] = s
		}
		s.End = c.TS + gap
		s.Sum += c.V
	}
	for _, s := range open {
		emit(*s)
	}
}

type sessionSum struct{}

func (sessionSum) CreateAccumulator() int64                     { return 0 }
func (sessionSum) Add(c sessionClick, acc int64) (int64, error) { return acc + c.V, nil }
func (sessionSum) GetResult(acc int64) (int64, error)           { return acc, nil }
func (sessionSum) Merge(a, b int64) (int64, error)              { return a + b, nil }
func sessionOf(u int64, w weir.TimeWindow, s int64) (sale, error) {
	return sale{Item: u, Amount: s}, nil
}

// BenchmarkSessionWindows: event-time session windows (merging on every
// click) beside the hand-written loop; both produce the same sessions,
// checked by their number and total. Run with
//
//	go test ./bench -run xxx -bench SessionWindows -benchtime 3x
func BenchmarkSessionWindows(b *testing.B) {
	var want, wantSum int64
	referenceSessionLoop(sessionClicks, func(s sessionResult) { want++; wantSum += s.Sum })
	b.Run("loop", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			var n, sum int64
			referenceSessionLoop(sessionClicks, func(s sessionResult) { n++; sum += s.Sum })
			if n != want || sum != wantSum {
				b.Fatalf("%d sessions summing to %d, want %d and %d", n, sum, want, wantSum)
			}
		}
		report(b, start, sessionClicks)
	})
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("engine-p%d", p), func(b *testing.B) {
			start := time.Now()
			for range b.N {
				env := weir.NewEnv(weir.WithParallelism(p))
				src := weir.Generate(env, weir.Generator[sessionClick]{Fn: genSessionClick, Count: sessionClicks})
				src = weir.AssignTimestampsAndWatermarks(src.SetParallelism(1), weir.MonotonousTimestamps(func(c sessionClick) int64 { return c.TS }))
				ws := weir.Window(weir.KeyBy(src, func(c sessionClick) int64 { return c.User }), weir.EventTimeSessionWindows(sessionGap))
				sessions := weir.WindowAggregateWith(ws, weir.AggregateFunction[sessionClick, int64, int64](sessionSum{}), sessionOf)
				sink := &sumSink{}
				weir.AddSinkWith(sessions, weir.SinkFunction[sale](sink))
				res := runResult(b, env)
				if n, sum := res.Accumulators["received"], res.Accumulators["sum"]; n != want || sum != wantSum {
					b.Fatalf("%d sessions summing to %d, want %d and %d", n, sum, want, wantSum)
				}
			}
			report(b, start, sessionClicks)
		})
	}
}

// sumSink counts what it receives and sums the amounts.
type sumSink struct {
	countSink
	total int64
	sum   *weir.Counter
}

func (s *sumSink) Open(rc *weir.RuntimeContext) error {
	s.sum = rc.Counter("sum")
	return s.countSink.Open(rc)
}
func (s *sumSink) Invoke(v sale) error { s.total += v.Amount; return s.countSink.Invoke(v) }
func (s *sumSink) Finish() error       { s.sum.Add(s.total); return s.countSink.Finish() }

// runResult executes the job and returns its result.
func runResult(b *testing.B, env *weir.Env) *weir.Result {
	b.Helper()
	res, err := env.Execute(context.Background(), b.Name())
	if err != nil {
		b.Fatal(err)
	}
	return res
}
