package weir_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
)

// alignSplit is a split of alignReader: element Next is Base+Next with
// timestamp Next*Step ms; it ends at Count.
type alignSplit struct {
	ID                string
	Base, Step, Count int64
	Next              int64
}

// alignWorld is what the readers of one test share: the event-time gate
// (elements at or after it wait), the largest timestamp the slow source
// emitted, the largest lead of the fast source over it, and how often
// the fast reader was told to pause a split.
type alignWorld struct {
	gate    atomic.Int64
	slowMax atomic.Int64
	mu      sync.Mutex
	lead    int64 // fast timestamp - slowMax, the largest seen
	pauses  atomic.Int64
}

func (w *alignWorld) fastAt(ts int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lead = max(w.lead, ts-w.slowMax.Load())
}

// alignReader reads its splits side by side, at most alignPerPoll
// elements per poll; the fast source's reader pauses splits
// (SplitPauser). The slow source's reader is slow in processing time too:
// after each poll that emitted it waits for Available (a millisecond), so
// that without alignment fast would run far ahead.
type alignReader struct {
	ctx    weir.ReaderContext[int64]
	world  *alignWorld
	fast   bool
	splits []alignSplit
	paused map[string]bool
}

const alignPerPoll = 5

func (r *alignReader) AddSplits(s []alignSplit) error {
	for _, sp := range s {
		r.ctx.Output.ForSplit(sp.ID)
	}
	r.splits = append(r.splits, s...)
	return nil
}

func (r *alignReader) Poll(int) (weir.ReadStatus, error) {
	gate, n := r.world.gate.Load(), 0
	for i := range r.splits {
		sp := &r.splits[i]
		if r.paused[sp.ID] {
			continue
		}
		for ; n < alignPerPoll && sp.Next < sp.Count && sp.Next*sp.Step < gate; n++ {
			ts := sp.Next * sp.Step
			if r.fast {
				r.world.fastAt(ts)
			}
			if err := r.ctx.Output.ForSplit(sp.ID).Collect(ts, sp.Base+sp.Next); err != nil {
				return 0, err
			}
			if !r.fast {
				for m := r.world.slowMax.Load(); ts > m && !r.world.slowMax.CompareAndSwap(m, ts); m = r.world.slowMax.Load() {
				}
			}
			sp.Next++
		}
	}
	r.splits = slices.DeleteFunc(r.splits, func(s alignSplit) bool {
		if s.Next >= s.Count {
			r.ctx.Output.ReleaseSplit(s.ID)
			delete(r.paused, s.ID)
			return true
		}
		return false
	})
	switch {
	case len(r.splits) == 0:
		return weir.ReadFinished, nil
	case n > 0 && r.fast:
		return weir.ReadMore, nil
	}
	return weir.ReadNothing, nil
}

// alignPausing is the fast source's reader: it stops reading the splits
// alignment pauses.
type alignPausing struct{ *alignReader }

func (r alignPausing) PauseOrResumeSplits(pause, resume []string) error {
	for _, id := range pause {
		r.paused[id] = true
	}
	for _, id := range resume {
		delete(r.paused, id)
	}
	r.world.pauses.Add(int64(len(pause)))
	return nil
}

// Available asks for a poll a millisecond later (the gate has no channel).
func (r *alignReader) Available() <-chan struct{} {
	ch := make(chan struct{})
	time.AfterFunc(time.Millisecond, func() { close(ch) })
	return ch
}

func (r *alignReader) SnapshotSplits(int64) ([]alignSplit, error) { return slices.Clone(r.splits), nil }
func (r *alignReader) NotifyCheckpointComplete(int64) error       { return nil }
func (r *alignReader) Close() error                               { return nil }

// Watermark alignment across a savepoint, a rescale and a failure. Two
// split sources in one alignment group (drift 100 ms, update every 2 ms)
// cover the same event time at very different speeds: "slow" advances 1
// ms per element (3 splits of 2000), "fast" 10 ms (4 splits of 200), so
// without alignment fast would be far ahead after a few polls. Each
// reader emits at most 5 elements per poll. The test asserts at every
// element fast emits that its timestamp is at most the largest slow
// timestamp so far plus the drift plus two polls (5 elements * 10 ms
// each: one after the check, one of a restored split before its
// watermark is known again),
// that fast's reader was told to pause splits, and that the exactly-once
// sink holds every element once. Phase 1 runs at parallelism 2 up to
// event time 700 ms (a gate) and stops with a savepoint; phase 2 restores
// at 3 up to 1400, fails once after a checkpoint and finishes (the slow
// source ends first; finished, it no longer holds fast back).
func TestWatermarkAlignmentRescaleWithFailure(t *testing.T) {
	const (
		drift   = 100 * time.Millisecond
		slowN   = 2000
		fastN   = 200
		fastStp = 10
		// drift, one poll after a split passed the check, and one poll of
		// a restored split before its watermark is known again
		bound = 100 + 2*alignPerPoll*fastStp
	)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := t.TempDir()
	pr := &probe{}
	var fail atomic.Bool
	world := &alignWorld{}
	source := func(env *weir.Env, name string, fast bool, splits []alignSplit) weir.DataStream[int64] {
		strategy := weir.WatermarkStrategy[int64]{Interval: time.Millisecond}.WithWatermarkAlignment("g", drift, 2*time.Millisecond)
		return weir.FromSplits(env, weir.SplitSource[int64, alignSplit]{
			Name:   name,
			Splits: func(int) ([]alignSplit, error) { return splits, nil },
			NewSourceReader: func(rc weir.ReaderContext[int64]) (weir.SourceReader[int64, alignSplit], error) {
				r := &alignReader{ctx: rc, world: world, fast: fast, paused: map[string]bool{}}
				if fast {
					return alignPausing{r}, nil
				}
				return r, nil
			},
			Watermarks: &strategy,
		}).UID(name)
	}
	var slowSplits, fastSplits []alignSplit
	for k := range int64(3) {
		slowSplits = append(slowSplits, alignSplit{ID: fmt.Sprint("s", k), Base: k * slowN, Step: 1, Count: slowN})
	}
	for k := range int64(4) {
		fastSplits = append(fastSplits, alignSplit{ID: fmt.Sprint("f", k), Base: 1_000_000 + k*fastN, Step: fastStp, Count: fastN})
	}
	job := func(p int, opts ...weir.Option) *weir.Env {
		env := weir.NewEnv(append([]weir.Option{weir.WithParallelism(p)}, opts...)...)
		all := weir.Union(source(env, "slow", false, slowSplits), source(env, "fast", true, fastSplits))
		checked := weir.MapWith(all, weir.MapFunction[int64, int64](&onceFailing{probe: pr, fail: &fail})).UID("check")
		weir.SinkTo(checked, file.NewSink(out, formatInt)).UID("sink")
		return env
	}

	world.gate.Store(700)
	env := job(2, weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	sp, _ := runUntilSavepoint(ctx, t, env, pr.expect(2*slowN+699, 0), nil)

	world.gate.Store(1400)
	env = job(3, weir.WithRestoreFrom(sp, false), weir.WithRestartStrategy(weir.FixedDelayRestart(1, 0)),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 5 * time.Millisecond}))
	c, err := env.ExecuteAsync(ctx, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-pr.expect(2*slowN+1399, 0):
	case <-c.Done():
		t.Fatal("the job ended early")
	}
	awaitCompletedCheckpoint(ctx, t, c)
	fail.Store(true)
	world.gate.Store(slowN)
	res, err := c.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 1 {
		t.Errorf("%d restarts, want 1", res.Restarts)
	}

	world.mu.Lock()
	lead := world.lead
	world.mu.Unlock()
	t.Logf("fast ran at most %d ms ahead of slow; its reader paused splits %d times", lead, world.pauses.Load())
	if lead > bound {
		t.Errorf("fast ran %d ms ahead of slow, want at most %d (drift + two polls)", lead, bound)
	}
	if world.pauses.Load() == 0 {
		t.Error("alignment never paused a split of the fast source")
	}
	got := committedInts(t, out)
	bad := 0
	check := func(v int64) {
		if got[v] != 1 {
			if bad++; bad <= 5 {
				t.Errorf("element %d committed %d times, want once", v, got[v])
			}
		}
	}
	for v := range int64(3 * slowN) {
		check(v)
	}
	for v := range int64(4 * fastN) {
		check(1_000_000 + v)
	}
	if len(got) != 3*slowN+4*fastN {
		t.Errorf("%d distinct elements committed, want %d", len(got), 3*slowN+4*fastN)
	}
}
