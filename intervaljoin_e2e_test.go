package weir_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
)

type stamped struct {
	Key string
	TS  int64
}

// The bounds of an interval join, as Flink defines them: b joins a when
// a.ts + lower <= b.ts <= a.ts + upper, a bound excluded when its option
// says so. Without watermarks before the end, no element is late.
func TestIntervalJoinBounds(t *testing.T) {
	for _, tt := range []struct {
		name         string
		lower, upper time.Duration
		opts         []weir.IntervalJoinOption
		want         []int64 // timestamps of the b that join a at 100
	}{
		{"inclusive", -5 * time.Millisecond, 5 * time.Millisecond, nil, []int64{95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105}},
		{"lower exclusive", -5 * time.Millisecond, 5 * time.Millisecond, []weir.IntervalJoinOption{weir.LowerBoundExclusive()}, []int64{96, 97, 98, 99, 100, 101, 102, 103, 104, 105}},
		{"upper exclusive", -5 * time.Millisecond, 5 * time.Millisecond, []weir.IntervalJoinOption{weir.UpperBoundExclusive()}, []int64{95, 96, 97, 98, 99, 100, 101, 102, 103, 104}},
		{"both exclusive", -2 * time.Millisecond, 2 * time.Millisecond, []weir.IntervalJoinOption{weir.LowerBoundExclusive(), weir.UpperBoundExclusive()}, []int64{99, 100, 101}},
		{"point", 0, 0, nil, []int64{100}},
		{"before only", -8 * time.Millisecond, -6 * time.Millisecond, nil, []int64{92, 93, 94}},
		{"after only", 3 * time.Millisecond, 4 * time.Millisecond, []weir.IntervalJoinOption{weir.LowerBoundExclusive()}, []int64{104}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := weir.NewEnv(weir.WithParallelism(2))
			as := []stamped{{"x", 100}, {"y", 100}}
			var bs []stamped
			for ts := int64(80); ts <= 120; ts++ {
				bs = append(bs, stamped{"x", ts})
			}
			strategy := weir.WatermarkStrategy[stamped]{Timestamp: func(s stamped) int64 { return s.TS }, OutOfOrderness: time.Hour}
			key := func(s stamped) string { return s.Key }
			a := weir.KeyBy(weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, as), strategy), key)
			b := weir.KeyBy(weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, bs), strategy), key)
			joined := weir.IntervalJoin(a, b, tt.lower, tt.upper, func(a, b stamped) (int64, error) {
				if a.Key != b.Key {
					return 0, fmt.Errorf("joined %v with %v", a, b)
				}
				return b.TS, nil
			}, tt.opts...)
			got, err := weir.Collect(context.Background(), joined)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("joined b at %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIntervalJoinRefusesEmptyInterval(t *testing.T) {
	env := weir.NewEnv()
	s := weir.KeyBy(weir.FromSlice(env, []int64{1}), func(v int64) int64 { return v })
	joined := weir.IntervalJoin(s, s, time.Millisecond, time.Millisecond, func(a, b int64) (int64, error) { return a, nil }, weir.UpperBoundExclusive())
	_, err := weir.Collect(context.Background(), joined)
	if !contains(err, "lower bound 1 is above upper bound 0") {
		t.Fatalf("error %v, want one naming the empty interval", err)
	}
}

// onceFailing passes elements on, reports them to a probe, and fails once
// at the first element of attempt 0 after fail is set.
type onceFailing struct {
	probe   *probe
	fail    *atomic.Bool
	attempt int
}

func (m *onceFailing) Open(rc *weir.RuntimeContext) error { m.attempt = rc.Attempt; return nil }

func (m *onceFailing) Map(v int64) (int64, error) {
	if m.attempt == 0 && m.fail.CompareAndSwap(true, false) {
		return 0, fmt.Errorf("designated failure at %d", v)
	}
	m.probe.saw(v, m.attempt)
	return v, nil
}

// Two-input keyed joins with watermarks (so that their state is cleaned
// up as they go) run at parallelism 2, stop with a savepoint, and finish
// at 3 after a failure; the exactly-once file sink holds every result
// once. The interval join emits i*10000+j for a=i, b=j; the coGroup
// (100 ms windows) emits (window*10+key)*10000 + 100*len(as) + len(bs).
func TestTwoInputJoinsRescaleWithFailure(t *testing.T) {
	const total = 3000
	for _, tt := range []struct {
		name string
		join func(a, b weir.KeyedStream[int64, int64]) weir.DataStream[int64]
		last func(l int64) int64 // a result that needs element l-1 of both
		want map[int64]int
	}{
		{"interval join", func(a, b weir.KeyedStream[int64, int64]) weir.DataStream[int64] {
			return weir.IntervalJoin(a, b, -20*time.Millisecond, 40*time.Millisecond, func(i, j int64) (int64, error) { return i*10000 + j, nil })
		}, func(l int64) int64 { return (l-2)*10000 + l - 2 }, intervalPairs(total)},
		{"coGroup", func(a, b weir.KeyedStream[int64, int64]) weir.DataStream[int64] {
			return weir.WindowCoGroup(a, b, weir.TumblingEventTimeWindows(100*time.Millisecond),
				func(k int64, w weir.TimeWindow, as, bs []int64, out weir.Collector[int64]) error {
					out.Collect((w.Start/100*10+k)*10000 + int64(100*len(as)+len(bs)))
					return nil
				})
		}, func(l int64) int64 { return ((l/10-2)*10+1)*10000 + 505 }, coGroups(total)},
	} {
		t.Run(tt.name, func(t *testing.T) { testJoinRescale(t, total, tt.join, tt.last, tt.want) })
	}
}

// intervalPairs are the pairs of the interval join: b=j joins a=i when
// j*10+3 lies in [i*10-20, i*10+40] and i, j have the same parity: j is
// i-2, i or i+2.
func intervalPairs(total int64) map[int64]int {
	want := map[int64]int{}
	for i := int64(0); i < total; i++ {
		for _, j := range []int64{i - 2, i, i + 2} {
			if j >= 0 && j < total {
				want[i*10000+j] = 1
			}
		}
	}
	return want
}

// coGroups are the groups of the coGroup: every 100 ms window holds 5
// elements of each side per key.
func coGroups(total int64) map[int64]int {
	want := map[int64]int{}
	for w := int64(0); w < total/10; w++ {
		for k := int64(0); k < 2; k++ {
			want[(w*10+k)*10000+505] = 1
		}
	}
	return want
}

func testJoinRescale(t *testing.T, total int64, join func(a, b weir.KeyedStream[int64, int64]) weir.DataStream[int64], last func(int64) int64, want map[int64]int) {
	const l1, p2 = 1000, 2000
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := t.TempDir()
	pr := &probe{}
	var stopA, stopB atomic.Int64
	var fail atomic.Bool
	job := func(p int, opts ...weir.Option) *weir.Env {
		env := weir.NewEnv(append([]weir.Option{weir.WithParallelism(p)}, opts...)...)
		stamp := func(uid string, stop *atomic.Int64, offset int64) weir.KeyedStream[int64, int64] {
			src := gated(env, uid, total, stop, func(i int64) int64 { return i })
			ts := weir.AssignTimestampsAndWatermarks(src, weir.WatermarkStrategy[int64]{
				Timestamp: func(v int64) int64 { return v*10 + offset }, Interval: time.Millisecond,
			}).UID(uid + "-wm")
			return weir.KeyBy(ts, func(v int64) int64 { return v % 2 })
		}
		a := stamp("a", &stopA, 0)
		b := stamp("b", &stopB, 3)
		joined := join(a, b).UID("join")
		checked := weir.MapWith(joined, weir.MapFunction[int64, int64](&onceFailing{probe: pr, fail: &fail})).UID("check")
		weir.SinkTo(checked, file.NewSink(out, formatInt)).UID("sink")
		return env
	}

	// Phase 1, parallelism 2: [0, l1) of both.
	stopA.Store(l1)
	stopB.Store(l1)
	env := job(2, weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	sp, _ := runUntilSavepoint(ctx, t, env, pr.expect(last(l1), 0), nil)

	// Phase 2, parallelism 3: the rest, with a failure after a checkpoint.
	stopA.Store(p2)
	stopB.Store(p2)
	env = job(3, weir.WithRestoreFrom(sp, false), weir.WithRestartStrategy(weir.FixedDelayRestart(1, 0)),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 5 * time.Millisecond}))
	c, err := env.ExecuteAsync(ctx, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-pr.expect(last(p2), 0):
	case <-c.Done():
		t.Fatal("the job ended early")
	}
	awaitCompletedCheckpoint(ctx, t, c)
	fail.Store(true)
	stopA.Store(total)
	stopB.Store(total)
	res, err := c.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 1 {
		t.Errorf("%d restarts, want 1", res.Restarts)
	}

	got := committedInts(t, out)
	if len(got) != len(want) {
		t.Errorf("%d distinct pairs committed, want %d", len(got), len(want))
	}
	bad := 0
	for v, n := range got {
		if want[v] != n {
			if bad++; bad <= 5 {
				t.Errorf("pair %d/%d committed %d times, want %d", v/10000, v%10000, n, want[v])
			}
		}
	}
}
