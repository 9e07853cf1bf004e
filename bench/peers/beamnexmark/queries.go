// Package beamnexmark runs Nexmark queries q0, q1, q2, q5 and q7 as Apache
// Beam Go SDK pipelines on the prism runner, over the same events the
// nexmark package generates, so their results can be checked against package
// reference and their speed compared with it.
//
// Events are generated inside the pipeline: a Create of position ranges
// (shards) feeds a DoFn that calls nexmark.Config.EventAt for each position
// and emits the event with its DateTime as the Beam event timestamp. Results
// leave the pipeline through a DoFn that appends them to an in-process
// collector; prism runs the SDK worker in loopback mode, in this process.
package beamnexmark

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/mtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"

	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

func init() {
	register.DoFn2x0[Shard, func(beam.EventTime, nexmark.Event)](&genFn{})
	register.Emitter2[beam.EventTime, nexmark.Event]()
	register.Combiner2[reference.Q0Result, nexmark.Event](&q0Fn{})
	register.DoFn2x0[nexmark.Event, func(reference.Q1Row)](&q1Fn{})
	register.Emitter1[reference.Q1Row]()
	register.DoFn2x0[nexmark.Event, func(reference.Q2Row)](&q2Fn{})
	register.Emitter1[reference.Q2Row]()
	register.DoFn3x0[beam.EventTime, nexmark.Event, func(beam.EventTime, reference.Q7Row)](&bidsFn{})
	register.Emitter2[beam.EventTime, reference.Q7Row]()
	register.Combiner3[q7Acc, reference.Q7Row, q7Acc](&q7Fn{})
	register.DoFn3x0[beam.Window, q7Acc, func(reference.Q7Row)](&q7RowsFn{})
	register.DoFn3x0[beam.EventTime, nexmark.Event, func(beam.EventTime, int64)](&bidAuctionFn{})
	register.Emitter2[beam.EventTime, int64]()
	register.Function2x1[int64, int, q5Count](toQ5Count)
	register.Combiner3[q5Acc, q5Count, q5Acc](&q5Fn{})
	register.DoFn3x0[beam.Window, q5Acc, func(reference.Q5Row)](&q5RowsFn{})
	register.Emitter1[reference.Q5Row]()
	register.DoFn1x0[beam.T](&collectFn{})
	beam.RegisterType(reflect.TypeOf((*Shard)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*q5Count)(nil)).Elem())
	// Event's fields are unexported (a flat union read through methods), so
	// Beam's schema coder cannot see them: it goes as its binary encoding.
	beam.RegisterCoder(reflect.TypeOf(nexmark.Event{}), encodeEvent, decodeEvent)
}

// encodeEvent and decodeEvent are Event's Beam coder.
func encodeEvent(e nexmark.Event) ([]byte, error) { return e.MarshalBinary() }

func decodeEvent(b []byte) (nexmark.Event, error) {
	var e nexmark.Event
	err := e.UnmarshalBinary(b)
	return e, err
}

// Shard is a range [Lo, Hi) of stream positions one genFn call generates.
type Shard struct{ Lo, Hi int64 }

// Shards splits [0, n) into at most k contiguous ranges.
func Shards(n int64, k int) []Shard {
	var out []Shard
	step := max((n+int64(k)-1)/int64(k), 1)
	for lo := int64(0); lo < n; lo += step {
		out = append(out, Shard{Lo: lo, Hi: min(lo+step, n)})
	}
	return out
}

// genFn is the source: it emits the events at a shard's positions, each
// stamped with its DateTime as the element's event time.
type genFn struct{ Cfg nexmark.Config }

func (f *genFn) ProcessElement(s Shard, emit func(beam.EventTime, nexmark.Event)) {
	for n := s.Lo; n < s.Hi; n++ {
		e := f.Cfg.EventAt(n)
		emit(mtime.FromMilliseconds(e.Timestamp()), e)
	}
}

// Events adds the source to p: the first n events of cfg, in shards ranges.
func Events(s beam.Scope, cfg nexmark.Config, n int64, shards int) beam.PCollection {
	s = s.Scope("nexmark.Events")
	return beam.ParDo(s, &genFn{Cfg: cfg}, beam.CreateList(s, Shards(n, shards)))
}

// q0Fn counts bids and sums their checksums: q0 as one global combine.
type q0Fn struct{}

func (q0Fn) CreateAccumulator() reference.Q0Result { return reference.Q0Result{} }

func (q0Fn) AddInput(a reference.Q0Result, e nexmark.Event) reference.Q0Result {
	if e.IsBid() {
		a.Bids++
		a.Checksum += reference.BidChecksum(new(e.Bid()))
	}
	return a
}

func (q0Fn) MergeAccumulators(a, b reference.Q0Result) reference.Q0Result { return a.Add(b) }

// Q0 is the pass-through query: a PCollection with one reference.Q0Result.
func Q0(s beam.Scope, events beam.PCollection) beam.PCollection {
	return beam.Combine(s.Scope("Q0"), &q0Fn{}, events)
}

type q1Fn struct{}

func (q1Fn) ProcessElement(e nexmark.Event, emit func(reference.Q1Row)) {
	if b := e.Bid(); e.IsBid() {
		emit(reference.Q1Row{Auction: b.Auction, Bidder: b.Bidder, Price: reference.DollarsToEuros(b.Price), DateTime: b.DateTime})
	}
}

// Q1 converts every bid's price to euros: PCollection<reference.Q1Row>.
func Q1(s beam.Scope, events beam.PCollection) beam.PCollection {
	return beam.ParDo(s.Scope("Q1"), &q1Fn{}, events)
}

type q2Fn struct{}

func (q2Fn) ProcessElement(e nexmark.Event, emit func(reference.Q2Row)) {
	if b := e.Bid(); e.IsBid() && b.Auction%reference.Q2Modulus == 0 {
		emit(reference.Q2Row{Auction: b.Auction, Price: b.Price})
	}
}

// Q2 selects the bids on every Q2Modulus-th auction: PCollection<reference.Q2Row>.
func Q2(s beam.Scope, events beam.PCollection) beam.PCollection {
	return beam.ParDo(s.Scope("Q2"), &q2Fn{}, events)
}

// bidsFn keeps the bids, as Q7 rows without a window, at their event time.
type bidsFn struct{}

func (bidsFn) ProcessElement(t beam.EventTime, e nexmark.Event, emit func(beam.EventTime, reference.Q7Row)) {
	if b := e.Bid(); e.IsBid() {
		emit(t, reference.Q7Row{Auction: b.Auction, Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime})
	}
}

// q7Acc holds the highest price seen and every bid at that price.
type q7Acc struct {
	Top  int64
	Bids []reference.Q7Row
}

func (a q7Acc) add(b reference.Q7Row) q7Acc {
	switch {
	case len(a.Bids) == 0 || b.Price > a.Top:
		return q7Acc{Top: b.Price, Bids: []reference.Q7Row{b}}
	case b.Price == a.Top:
		a.Bids = append(a.Bids, b)
	}
	return a
}

// q7Fn combines a window's bids into its highest ones, ties included.
type q7Fn struct{}

func (q7Fn) CreateAccumulator() q7Acc                  { return q7Acc{} }
func (q7Fn) AddInput(a q7Acc, b reference.Q7Row) q7Acc { return a.add(b) }
func (q7Fn) ExtractOutput(a q7Acc) q7Acc               { return a }
func (q7Fn) MergeAccumulators(a, b q7Acc) q7Acc        { return mergeQ7(a, b) }
func mergeQ7(a, b q7Acc) q7Acc {
	switch {
	case len(b.Bids) == 0 || (len(a.Bids) > 0 && a.Top > b.Top):
		return a
	case len(a.Bids) == 0 || b.Top > a.Top:
		return b
	}
	return q7Acc{Top: a.Top, Bids: append(slices.Clip(a.Bids), b.Bids...)}
}

// q7RowsFn stamps each highest bid with its window's start.
type q7RowsFn struct{}

func (q7RowsFn) ProcessElement(w beam.Window, a q7Acc, emit func(reference.Q7Row)) {
	start := w.(window.IntervalWindow).Start.Milliseconds()
	for _, b := range a.Bids {
		b.WindowStart = start
		emit(b)
	}
}

// Q7 finds each tumbling window's highest bids: PCollection<reference.Q7Row>.
func Q7(s beam.Scope, events beam.PCollection) beam.PCollection {
	s = s.Scope("Q7")
	bids := beam.ParDo(s, &bidsFn{}, events)
	w := beam.WindowInto(s, window.NewFixedWindows(time.Duration(reference.WindowSize)*time.Millisecond), bids)
	return beam.ParDo(s, &q7RowsFn{}, beam.Combine(s, &q7Fn{}, w))
}

// bidAuctionFn keeps each bid's auction ID at the bid's event time.
type bidAuctionFn struct{}

func (bidAuctionFn) ProcessElement(t beam.EventTime, e nexmark.Event, emit func(beam.EventTime, int64)) {
	if b := e.Bid(); e.IsBid() {
		emit(t, b.Auction)
	}
}

// q5Count is one auction's bid count in one window.
type q5Count struct{ Auction, Count int64 }

func toQ5Count(auction int64, n int) q5Count { return q5Count{Auction: auction, Count: int64(n)} }

// q5Acc holds the highest count seen and every auction with it.
type q5Acc struct {
	Top      int64
	Auctions []int64
}

// q5Fn combines a window's per-auction counts into the hottest auctions.
type q5Fn struct{}

func (q5Fn) CreateAccumulator() q5Acc { return q5Acc{} }
func (q5Fn) AddInput(a q5Acc, c q5Count) q5Acc {
	switch {
	case c.Count > a.Top:
		return q5Acc{Top: c.Count, Auctions: []int64{c.Auction}}
	case c.Count == a.Top:
		a.Auctions = append(a.Auctions, c.Auction)
	}
	return a
}
func (q5Fn) ExtractOutput(a q5Acc) q5Acc { return a }
func (q5Fn) MergeAccumulators(a, b q5Acc) q5Acc {
	switch {
	case a.Top > b.Top:
		return a
	case b.Top > a.Top:
		return b
	}
	return q5Acc{Top: a.Top, Auctions: append(slices.Clip(a.Auctions), b.Auctions...)}
}

// q5RowsFn turns a window's hottest auctions into rows.
type q5RowsFn struct{}

func (q5RowsFn) ProcessElement(w beam.Window, a q5Acc, emit func(reference.Q5Row)) {
	start := w.(window.IntervalWindow).Start.Milliseconds()
	for _, auction := range a.Auctions {
		emit(reference.Q5Row{WindowStart: start, Auction: auction, Count: a.Top})
	}
}

// Q5 finds the hot items of each sliding window: PCollection<reference.Q5Row>.
// As Beam's Java Query5: count bids per auction in sliding windows, then
// keep each window's maximum with a second, global per-window combine.
func Q5(s beam.Scope, events beam.PCollection) beam.PCollection {
	s = s.Scope("Q5")
	auctions := beam.ParDo(s, &bidAuctionFn{}, events)
	w := beam.WindowInto(s, window.NewSlidingWindows(
		time.Duration(reference.Q5Slide)*time.Millisecond,
		time.Duration(reference.WindowSize)*time.Millisecond), auctions)
	counts := beam.ParDo(s, toQ5Count, stats.Count(s, w))
	return beam.ParDo(s, &q5RowsFn{}, beam.Combine(s, &q5Fn{}, counts))
}

// collector holds the output of running pipelines, by collectFn.ID.
var (
	collectMu sync.Mutex
	collected = map[string][]any{}
	runs      atomic.Int64
)

// collectFn appends every element to collected[ID].
type collectFn struct{ ID string }

func (f *collectFn) ProcessElement(x beam.T) {
	collectMu.Lock()
	collected[f.ID] = append(collected[f.ID], x)
	collectMu.Unlock()
}

// Query builds one query's transforms over the event PCollection.
type Query func(beam.Scope, beam.PCollection) beam.PCollection

// Run builds a pipeline that generates the first n events of cfg in shards
// ranges, applies q, runs it on prism and returns q's output elements, in
// no particular order.
func Run(ctx context.Context, cfg nexmark.Config, n int64, shards int, q Query) ([]any, error) {
	id := fmt.Sprintf("run-%d", runs.Add(1))
	p, s := beam.NewPipelineWithRoot()
	beam.ParDo0(s, &collectFn{ID: id}, q(s, Events(s, cfg, n, shards)))
	defer func() {
		collectMu.Lock()
		delete(collected, id)
		collectMu.Unlock()
	}()
	if _, err := prism.Execute(ctx, p); err != nil {
		return nil, err
	}
	collectMu.Lock()
	defer collectMu.Unlock()
	return collected[id], nil
}

// RunAs is Run with the output elements asserted to T.
func RunAs[T any](ctx context.Context, cfg nexmark.Config, n int64, shards int, q Query) ([]T, error) {
	xs, err := Run(ctx, cfg, n, shards, q)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		t, ok := x.(T)
		if !ok {
			return nil, fmt.Errorf("beamnexmark: output element %T, want %T", x, *new(T))
		}
		out = append(out, t)
	}
	return out, nil
}
