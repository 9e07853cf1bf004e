package queries

import (
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// Q5 is hot items: per sliding window (reference.WindowSize, every
// reference.Q5Slide) the auctions with the most bids. A windowed count per
// auction feeds a second stage keyed by window, which emits the auctions
// with the maximum count when the watermark passes the window's end.
func Q5(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q5Row] {
	return Q5Of(Source(env, cfg, SourceOptions{}))
}

// Q5Of is Q5 over a given event stream.
func Q5Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q5Row] {
	auctions := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[int64]) error {
		if e.IsBid() {
			out.Collect(e.Bid().Auction)
		}
		return nil
	}).Name("q5-bids")
	windows := weir.Window(weir.KeyBy(auctions, func(a int64) int64 { return a }),
		weir.SlidingEventTimeWindows(time.Duration(reference.WindowSize)*time.Millisecond, time.Duration(reference.Q5Slide)*time.Millisecond))
	counts := weir.WindowAggregateWith(windows, countAgg{}, func(auction int64, w weir.TimeWindow, n int64) (reference.Q5Row, error) {
		return reference.Q5Row{WindowStart: w.Start, Auction: auction, Count: n}, nil
	}).Name("q5-count")
	return weir.Process(weir.KeyBy(counts, func(r reference.Q5Row) int64 { return r.WindowStart }),
		weir.KeyedProcessFunction[int64, reference.Q5Row, reference.Q5Row](&hottest{})).Name("q5-max")
}

// countAgg counts elements.
type countAgg struct{}

func (countAgg) CreateAccumulator() int64            { return 0 }
func (countAgg) Add(_ int64, n int64) (int64, error) { return n + 1, nil }
func (countAgg) GetResult(n int64) (int64, error)    { return n, nil }

// hottest keeps, per window start, the rows with the highest count and
// emits them at the window's end.
type hottest struct {
	top weir.ListState[reference.Q5Row]
}

// Open registers the state.
func (f *hottest) Open(rc *weir.KeyedRuntimeContext[int64]) (err error) {
	f.top, err = weir.GetListState[reference.Q5Row](rc, "top")
	return err
}

// ProcessElement keeps r if its count is at least the best so far.
func (f *hottest) ProcessElement(ctx *weir.KeyedContext[int64, reference.Q5Row], r reference.Q5Row) error {
	top := f.top.Get()
	switch {
	case len(top) == 0:
		ctx.TimerService().RegisterEventTimeTimer(r.WindowStart + reference.WindowSize - 1)
		f.top.Add(r)
	case r.Count > top[0].Count:
		f.top.Update([]reference.Q5Row{r})
	case r.Count == top[0].Count:
		f.top.Add(r)
	}
	return nil
}

// OnTimer emits the window's hottest auctions.
func (f *hottest) OnTimer(ctx *weir.KeyedContext[int64, reference.Q5Row], _ int64) error {
	for _, r := range f.top.Get() {
		ctx.Collect(r)
	}
	f.top.Clear()
	return nil
}
