package weir_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// rangeSplit is a split of the test reader: elements ID:Next .. ID:End-1,
// element i with timestamp i*100 ms. End < 0: the split emits nothing and
// never ends (a quiet Kafka partition).
type rangeSplit struct {
	ID        string
	Next, End int64
}

// rangeReader reads all its splits side by side, one element of each in
// turn.
type rangeReader struct {
	ctx    weir.ReaderContext[string]
	splits []rangeSplit
	// read counts elements read over all readers
	read *atomic.Int64
}

func (r *rangeReader) AddSplits(s []rangeSplit) error {
	for _, sp := range s {
		r.ctx.Output.ForSplit(sp.ID)
	}
	r.splits = append(r.splits, s...)
	return nil
}

func (r *rangeReader) Poll(budget int) (weir.ReadStatus, error) {
	emitted := false
	for budget > 0 {
		progressed := false
		for i := range r.splits {
			sp := &r.splits[i]
			if sp.End < 0 || sp.Next >= sp.End || budget == 0 {
				continue
			}
			if err := r.ctx.Output.ForSplit(sp.ID).Collect(sp.Next*100, fmt.Sprintf("%s:%d", sp.ID, sp.Next)); err != nil {
				return 0, err
			}
			sp.Next++
			budget--
			progressed, emitted = true, true
			r.read.Add(1)
		}
		if !progressed {
			break
		}
	}
	r.splits = slices.DeleteFunc(r.splits, func(s rangeSplit) bool {
		if s.End >= 0 && s.Next >= s.End {
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

func (r *rangeReader) Available() <-chan struct{} { return nil }
func (r *rangeReader) SnapshotSplits(int64) ([]rangeSplit, error) {
	return slices.Clone(r.splits), nil
}
func (r *rangeReader) NotifyCheckpointComplete(int64) error { return nil }
func (r *rangeReader) Close() error                         { return nil }

// laterEnumerator hands out split "a" at once, and split "b" only once
// every element of "a" was read: until then it answers "none now, ask
// later", as an enumerator that discovers new splits while the job runs.
type laterEnumerator struct {
	read        *atomic.Int64
	a, b        bool
	nonesBefore int
}

func (e *laterEnumerator) Next(int) (rangeSplit, bool, bool) {
	switch {
	case !e.a:
		e.a = true
		return rangeSplit{ID: "a", End: 10}, true, true
	case !e.b && (e.read.Load() < 10 || e.nonesBefore == 0):
		e.nonesBefore++
		return rangeSplit{}, false, true
	case !e.b:
		e.b = true
		return rangeSplit{ID: "b", End: 5}, true, true
	}
	return rangeSplit{}, false, false
}
func (e *laterEnumerator) Snapshot() ([]byte, error) { return nil, nil }
func (e *laterEnumerator) Close() error              { return nil }

// An enumerator may hand out a split later than the first request: a
// reader that heard "none now" asks again, gets it, and the bounded source
// ends once the enumerator has no more.
func TestSourceReaderGetsSplitsLater(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1))
	var read atomic.Int64
	enum := &laterEnumerator{read: &read}
	s := weir.FromSplits(env, weir.SplitSource[string, rangeSplit]{
		Dynamic: true, RequestInterval: time.Millisecond,
		NewEnumerator: func(int, []byte) (weir.SplitEnumerator[rangeSplit], error) { return enum, nil },
		NewSourceReader: func(ctx weir.ReaderContext[string]) (weir.SourceReader[string, rangeSplit], error) {
			return &rangeReader{ctx: ctx, read: &read}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got, err := weir.Collect(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	var want []string
	for i := range 10 {
		want = append(want, fmt.Sprintf("a:%d", i))
	}
	for i := range 5 {
		want = append(want, fmt.Sprintf("b:%d", i))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("read %q, want %q", got, want)
	}
	if enum.nonesBefore == 0 {
		t.Fatal("the enumerator never answered \"none now\": the test did not test a later split")
	}
}

// Per-split watermarks: split "a" emits timestamps 0, 100, 200 ms, ...
// without end, split "q" emits nothing and never ends. With idleness, "q" stops holding the
// watermark back and the window [0, 500) fires while the job runs; the
// elements keep the split's timestamps.
func TestPerSplitWatermarksWithIdleSplit(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1))
	s := weir.FromSplits(env, weir.SplitSource[string, rangeSplit]{
		Unbounded: true,
		Splits: func(int) ([]rangeSplit, error) {
			return []rangeSplit{{ID: "a", End: math.MaxInt64}, {ID: "q", End: -1}}, nil
		},
		NewSourceReader: func(ctx weir.ReaderContext[string]) (weir.SourceReader[string, rangeSplit], error) {
			return &rangeReader{ctx: ctx, read: new(atomic.Int64)}, nil
		},
		Watermarks: &weir.WatermarkStrategy[string]{Interval: 5 * time.Millisecond, Idleness: 20 * time.Millisecond},
	})
	counts := weir.WindowReduce(weir.Window(weir.KeyBy(weir.Map(s, func(v string) (int, error) {
		return 1, nil
	}), func(int) int { return 0 }), weir.TumblingEventTimeWindows(500*time.Millisecond)),
		func(a, b int) (int, error) { return a + b, nil })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got, err := weir.CollectN(ctx, counts, 1)
	if err != nil && !strings.Contains(err.Error(), "collected") {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != 5 {
		t.Fatalf("window results %v, want [5] (elements 0..400 ms) while the job runs", got)
	}
}
