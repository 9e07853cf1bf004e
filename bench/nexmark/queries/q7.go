package queries

import (
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// Q7 is highest bid: per tumbling window of reference.WindowSize, every bid
// with the window's highest price. It is a two-phase maximum, as Flink
// plans a global window aggregate: a tumbling window per bucket keeps that
// bucket's highest bids, and a second stage keyed by window keeps those
// with the window's maximum and emits them at the window's end. The buckets
// (q7Buckets, by price and time) spread the bids evenly over the subtasks
// and bound the second stage's input to q7Buckets rows per window. Keyed by
// auction instead, as the query's text suggests, the subtask owning the hot
// auction (half of all bids, see nexmark.Config.HotAuctionRatio) received
// three quarters of the bids at parallelism 2.
func Q7(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q7Row] {
	return Q7Of(Source(env, cfg, SourceOptions{}))
}

// Q7Of is Q7 over a given event stream.
func Q7Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q7Row] {
	bids := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[reference.Q7Row]) error {
		if b := e.Bid(); e.IsBid() {
			out.Collect(reference.Q7Row{Auction: b.Auction, Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime})
		}
		return nil
	}).Name("q7-bids")
	windows := weir.Window(weir.KeyBy(bids, q7Bucket),
		weir.TumblingEventTimeWindows(time.Duration(reference.WindowSize)*time.Millisecond))
	tops := weir.WindowAggregateWith(windows, topBids{}, func(_ int64, w weir.TimeWindow, rows []reference.Q7Row) (q7Top, error) {
		return q7Top{WindowStart: w.Start, Rows: rows}, nil
	}).Name("q7-bucket-max")
	return weir.Process(weir.KeyBy(tops, func(t q7Top) int64 { return t.WindowStart }),
		weir.KeyedProcessFunction[int64, q7Top, reference.Q7Row](&windowMax{})).Name("q7-max")
}

// q7Buckets is the number of first-stage groups of Q7.
const q7Buckets = 128

// q7Bucket is the first-stage group of a bid: a mix of its price and time,
// which neither the hot auction nor the hot bidder skews.
func q7Bucket(r reference.Q7Row) int64 { return (r.Price ^ r.DateTime*31) & (q7Buckets - 1) }

// q7Top is one bucket's highest bids in one window, all at the same price.
type q7Top struct {
	WindowStart int64
	Rows        []reference.Q7Row
}

// topBids keeps the bids with the highest price. The accumulator is owned
// by one bucket and window, so appending to it is safe.
type topBids struct{}

func (topBids) CreateAccumulator() []reference.Q7Row { return nil }

func (topBids) Add(r reference.Q7Row, acc []reference.Q7Row) ([]reference.Q7Row, error) {
	switch {
	case len(acc) == 0 || r.Price > acc[0].Price:
		return []reference.Q7Row{r}, nil
	case r.Price == acc[0].Price:
		return append(acc, r), nil
	}
	return acc, nil
}

func (topBids) GetResult(acc []reference.Q7Row) ([]reference.Q7Row, error) { return acc, nil }

// windowMax merges the buckets' highest bids of one window and emits those
// at the window's maximum price when the window ends.
type windowMax struct {
	top weir.ListState[reference.Q7Row]
}

// Open registers the state.
func (f *windowMax) Open(rc *weir.KeyedRuntimeContext[int64]) (err error) {
	f.top, err = weir.GetListState[reference.Q7Row](rc, "top")
	return err
}

// ProcessElement merges one bucket's highest bids.
func (f *windowMax) ProcessElement(ctx *weir.KeyedContext[int64, reference.Q7Row], t q7Top) error {
	if len(t.Rows) == 0 {
		return nil
	}
	top := f.top.Get()
	switch {
	case len(top) == 0:
		ctx.TimerService().RegisterEventTimeTimer(t.WindowStart + reference.WindowSize - 1)
	case t.Rows[0].Price < top[0].Price:
		return nil
	case t.Rows[0].Price > top[0].Price:
		f.top.Clear()
	}
	for _, r := range t.Rows {
		r.WindowStart = t.WindowStart
		f.top.Add(r)
	}
	return nil
}

// OnTimer emits the window's highest bids.
func (f *windowMax) OnTimer(ctx *weir.KeyedContext[int64, reference.Q7Row], _ int64) error {
	for _, r := range f.top.Get() {
		ctx.Collect(r)
	}
	f.top.Clear()
	return nil
}
