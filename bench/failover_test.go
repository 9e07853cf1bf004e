package main_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// Shape of BenchmarkFailover's job.
const (
	failoverRecords = 1_000_000
	failoverRate    = 1_000_000 // records per second, over both subtasks
	failoverKeys    = 1000
	// failoverAfter is the least time the first attempt runs before its
	// map fails (and it fails only once a checkpoint completed).
	failoverAfter = 300 * time.Millisecond
)

var errInjected = errors.New("injected failure")

// failoverRun is what one iteration's functions share (subtasks get
// shallow copies of the functions, so the pointer is shared).
type failoverRun struct {
	armed, failed atomic.Bool
	// failedAt is when the map returned its error; first[a] when the
	// first record reached the sink in attempt a (Unix nanoseconds).
	failedAt atomic.Int64
	first    [2]atomic.Int64
	// resumed is the smallest index the map saw first in a subtask of
	// the second attempt: where the restored source went on.
	resumedMu sync.Mutex
	resumed   int64
	// sums holds the latest rolling sum the sink saw per key.
	sums [failoverKeys]atomic.Int64
}

// failingMap passes records through and fails once, in the first attempt,
// when the run is armed.
type failingMap struct {
	r       *failoverRun
	attempt int
	seen    bool
}

func (m *failingMap) Open(rc *weir.RuntimeContext) error { m.attempt = rc.Attempt; return nil }

func (m *failingMap) Map(s sale) (sale, error) {
	if m.attempt == 0 {
		if m.r.armed.Load() && m.r.failed.CompareAndSwap(false, true) {
			m.r.failedAt.Store(time.Now().UnixNano())
			return s, errInjected
		}
	} else if !m.seen {
		m.seen = true
		m.r.resumedMu.Lock()
		m.r.resumed = min(m.r.resumed, s.Amount)
		m.r.resumedMu.Unlock()
	}
	return s, nil
}

// lastSumSink stamps the first record of each attempt and keeps the
// latest sum per key.
type lastSumSink struct {
	r       *failoverRun
	attempt int
	seen    bool
}

func (k *lastSumSink) Open(rc *weir.RuntimeContext) error { k.attempt = rc.Attempt; return nil }

func (k *lastSumSink) Invoke(s sale) error {
	if !k.seen {
		k.seen = true
		k.r.first[min(k.attempt, 1)].CompareAndSwap(0, time.Now().UnixNano())
	}
	k.r.sums[s.Item].Store(s.Amount)
	return nil
}

// BenchmarkFailover measures the time from a task failure to the job
// producing output again: a keyed rolling sum (generator at 1 M records/s
// -> map -> keyBy -> reduce -> sink, parallelism 2) with checkpoints every
// 100 ms, whose map fails once, at least 300 ms into the job and after a
// checkpoint completed. The job restarts from the latest checkpoint under
// a fixed-delay restart strategy with zero delay, so the figure is the
// engine's own: cancelling the other tasks, restoring the state, deploying
// the tasks again and the first records crossing the network.
// Reported: seconds from the map's error to the first record reaching the
// sink in the new attempt (failover-s), and, as the baseline of the same
// run, seconds from submitting the job to its first record reaching the
// sink (startup-s). Checked: the job finished after exactly one restart,
// the source resumed past its start (from the checkpoint, not from
// scratch), and every key's final sum is exact. Target: failover under 1 s.
func BenchmarkFailover(b *testing.B) {
	want := make([]int64, failoverKeys)
	for i := int64(0); i < failoverRecords; i++ {
		want[i%failoverKeys] += i
	}
	const p = 2
	var failover, startup time.Duration
	for range b.N {
		r := &failoverRun{resumed: failoverRecords}
		env := weir.NewEnv(weir.WithParallelism(p),
			weir.WithCheckpointing(weir.CheckpointConfig{Interval: 100 * time.Millisecond}),
			weir.WithRestartStrategy(weir.FixedDelayRestart(1, 0)))
		src := weir.Generate(env, weir.Generator[sale]{
			// The amount is the record's index, so the map sees where a
			// restored source goes on.
			Fn:            func(i int64) (sale, error) { return sale{Item: i % failoverKeys, Amount: i}, nil },
			Count:         failoverRecords,
			RatePerSecond: failoverRate,
		})
		mapped := weir.MapWith(src, weir.MapFunction[sale, sale](&failingMap{r: r}))
		sums := weir.Reduce(weir.KeyBy(mapped, func(s sale) int64 { return s.Item }), func(x, y sale) (sale, error) {
			x.Amount += y.Amount
			return x, nil
		})
		weir.AddSinkWith(sums, weir.SinkFunction[sale](&lastSumSink{r: r}))

		submitted := time.Now()
		c, err := env.ExecuteAsync(context.Background(), "failover")
		if err != nil {
			b.Fatal(err)
		}
		var arm sync.WaitGroup
		arm.Go(func() {
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-c.Done():
					return
				case <-tick.C:
					if time.Since(submitted) >= failoverAfter && c.Status().Checkpoints.Completed > 0 {
						r.armed.Store(true)
						return
					}
				}
			}
		})
		res, err := c.Wait()
		arm.Wait()
		if err != nil {
			b.Fatal(err)
		}
		if !r.failed.Load() || res.Restarts != 1 {
			b.Fatalf("failed %v, %d restarts: want one failover", r.failed.Load(), res.Restarts)
		}
		if r.resumed < p {
			b.Fatalf("the restarted source began at record %d: not restored from a checkpoint", r.resumed)
		}
		for k, w := range want {
			if got := r.sums[k].Load(); got != w {
				b.Fatalf("key %d: final sum %d, want %d", k, got, w)
			}
		}
		failedAt, back := r.failedAt.Load(), r.first[1].Load()
		if back <= failedAt {
			b.Fatalf("no record reached the sink after the failure")
		}
		failover += time.Duration(back - failedAt)
		startup += time.Unix(0, r.first[0].Load()).Sub(submitted)
	}
	b.ReportMetric((failover / time.Duration(b.N)).Seconds(), "failover-s")
	b.ReportMetric((startup / time.Duration(b.N)).Seconds(), "startup-s")
}
