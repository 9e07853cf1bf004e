package weir_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
)

// wmSplit is a split of wmSplitReader: "a" emits 0, 1, 2, ... (at
// i*10 ms) up to the gate; the others emit nothing and end once the gate
// reaches the total.
type wmSplit struct {
	ID   string
	Next int64
}

// wmSplitReader reads its splits side by side, each through its own
// split output, so each has its own watermark.
type wmSplitReader struct {
	ctx    weir.ReaderContext[int64]
	splits []wmSplit
	stop   *atomic.Int64
	total  int64
}

func (r *wmSplitReader) AddSplits(s []wmSplit) error {
	for _, sp := range s {
		r.ctx.Output.ForSplit(sp.ID)
	}
	r.splits = append(r.splits, s...)
	return nil
}

func (r *wmSplitReader) Poll(budget int) (weir.ReadStatus, error) {
	stop := r.stop.Load()
	emitted := false
	for i := range r.splits {
		sp := &r.splits[i]
		for ; sp.ID == "a" && budget > 0 && sp.Next < min(stop, r.total); budget-- {
			if err := r.ctx.Output.ForSplit(sp.ID).Collect(sp.Next*10, sp.Next); err != nil {
				return 0, err
			}
			sp.Next++
			emitted = true
		}
	}
	r.splits = slices.DeleteFunc(r.splits, func(s wmSplit) bool {
		if (s.ID == "a" && s.Next >= r.total) || (s.ID != "a" && stop >= r.total) {
			r.ctx.Output.ReleaseSplit(s.ID)
			return true
		}
		return false
	})
	switch {
	case len(r.splits) == 0:
		return weir.ReadFinished, nil
	case emitted:
		return weir.ReadMore, nil
	}
	return weir.ReadNothing, nil
}

// Available asks for a poll a millisecond later: the gate has no channel.
func (r *wmSplitReader) Available() <-chan struct{} {
	ch := make(chan struct{})
	time.AfterFunc(time.Millisecond, func() { close(ch) })
	return ch
}

func (r *wmSplitReader) SnapshotSplits(int64) ([]wmSplit, error) {
	return slices.Clone(r.splits), nil
}
func (r *wmSplitReader) NotifyCheckpointComplete(int64) error { return nil }
func (r *wmSplitReader) Close() error                         { return nil }

// Per-split watermarks with idleness across a savepoint, a rescale and a
// failure. A split source holds split "a" (element i at i*10 ms, up to a
// gate) and three quiet splits that emit nothing until the end; its
// per-split watermarks declare a quiet split idle after 20 ms, so event
// time follows "a" and the 100 ms windows (5 elements per key of i%2) fire
// while the job runs: without idleness the quiet splits would hold them
// back until the end. Phase 1 runs at parallelism 2 and stops with a
// savepoint once window 28 fired; phase 2 restores it at 3 (the splits,
// with their positions, dealt out again), fails once after a checkpoint
// and finishes. The exactly-once file sink holds every window once, with
// exactly its 5 elements: (window*10+key)*100 + count.
func TestPerSplitWatermarksIdlenessRescaleWithFailure(t *testing.T) {
	const total, l1 = 2000, 300
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := t.TempDir()
	pr := &probe{}
	var stop atomic.Int64
	var fail atomic.Bool
	job := func(p int, opts ...weir.Option) *weir.Env {
		env := weir.NewEnv(append([]weir.Option{weir.WithParallelism(p)}, opts...)...)
		strategy := weir.WatermarkStrategy[int64]{Interval: time.Millisecond}.WithIdleness(20 * time.Millisecond)
		src := weir.FromSplits(env, weir.SplitSource[int64, wmSplit]{
			Name: "splits",
			Splits: func(int) ([]wmSplit, error) {
				return []wmSplit{{ID: "a"}, {ID: "q0"}, {ID: "q1"}, {ID: "q2"}}, nil
			},
			NewSourceReader: func(rc weir.ReaderContext[int64]) (weir.SourceReader[int64, wmSplit], error) {
				return &wmSplitReader{ctx: rc, stop: &stop, total: total}, nil
			},
			Watermarks: &strategy,
		}).UID("splits")
		windows := weir.WindowAggregateWith(
			weir.Window(weir.KeyBy(src, func(v int64) int64 { return v % 2 }), weir.TumblingEventTimeWindows(100*time.Millisecond)),
			weir.AggregateFunction[int64, int64, int64](countAgg{}),
			func(k int64, w weir.TimeWindow, n int64) (int64, error) { return (w.Start/100*10+k)*100 + n, nil }).UID("windows")
		checked := weir.MapWith(windows, weir.MapFunction[int64, int64](&onceFailing{probe: pr, fail: &fail})).UID("check")
		weir.SinkTo(checked, file.NewSink(out, formatInt)).UID("sink")
		return env
	}
	lastOf := func(l int64) int64 { return ((l/10-2)*10+1)*100 + 5 } // the last window the watermark of l-1 closes, key 1

	stop.Store(l1)
	env := job(2, weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	sp, _ := runUntilSavepoint(ctx, t, env, pr.expect(lastOf(l1), 0), nil)

	const p2 = 1000
	stop.Store(p2)
	env = job(3, weir.WithRestoreFrom(sp, false), weir.WithRestartStrategy(weir.FixedDelayRestart(1, 0)),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 5 * time.Millisecond}))
	c, err := env.ExecuteAsync(ctx, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-pr.expect(lastOf(p2), 0):
	case <-c.Done():
		t.Fatal("the job ended early")
	}
	awaitCompletedCheckpoint(ctx, t, c)
	fail.Store(true)
	stop.Store(total)
	res, err := c.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 1 {
		t.Errorf("%d restarts, want 1", res.Restarts)
	}
	want := map[int64]int{}
	for w := int64(0); w < total/10; w++ {
		for k := int64(0); k < 2; k++ {
			want[(w*10+k)*100+5] = 1
		}
	}
	got := committedInts(t, out)
	if len(got) != len(want) {
		t.Errorf("%d distinct windows committed, want %d", len(got), len(want))
	}
	bad := 0
	for v, n := range got {
		if want[v] != n {
			if bad++; bad <= 5 {
				t.Errorf("window result %d committed %d times, want %d", v, n, want[v])
			}
		}
	}
}

// countAgg counts elements.
type countAgg struct{}

func (countAgg) CreateAccumulator() int64            { return 0 }
func (countAgg) Add(_ int64, n int64) (int64, error) { return n + 1, nil }
func (countAgg) GetResult(n int64) (int64, error)    { return n, nil }
