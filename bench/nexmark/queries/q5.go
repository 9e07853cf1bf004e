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
//
// Both steps are two-phase, as Flink's local-global aggregation: before the
// keyBy, each subtask counts its bids per auction and slide-long pane and
// sends the partial counts at each watermark (q5LocalCount), and the keyed
// windows add them up; each subtask of those keeps per window only its rows
// with the highest count (localTop), so the stage keyed by window gets a
// few rows per window, not one per auction. Half of all bids are on the hot auction (see
// nexmark.Config.HotAuctionRatio): keyed by auction straight away, its
// subtask received three quarters of the bids at parallelism 2.
func Q5(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q5Row] {
	return Q5Of(Source(env, cfg, SourceOptions{}))
}

// Q5Of is Q5 over a given event stream.
func Q5Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q5Row] {
	partials := weir.ProcessStream(events, weir.ProcessFunction[nexmark.Event, q5Partial](&q5LocalCount{})).Name("q5-local-count")
	windows := weir.Window(weir.KeyBy(partials, func(p q5Partial) int64 { return p.Auction }),
		weir.SlidingEventTimeWindows(time.Duration(reference.WindowSize)*time.Millisecond, time.Duration(reference.Q5Slide)*time.Millisecond))
	counts := weir.WindowAggregateWith(windows, sumAgg{}, func(auction int64, w weir.TimeWindow, n int64) (reference.Q5Row, error) {
		return reference.Q5Row{WindowStart: w.Start, Auction: auction, Count: n}, nil
	}).Name("q5-count")
	return twoPhaseTop(counts, q5Top, "q5")
}

// q5Partial is the number of bids one subtask saw on Auction in the pane
// [Pane, Pane+reference.Q5Slide) since the last watermark.
type q5Partial struct {
	Auction, Pane, Count int64
}

// q5LocalCount counts its subtask's bids per auction and pane and emits the
// counts at each watermark, before the watermark, with the pane's last
// millisecond as their time: every bid of a pane lies in the same windows,
// and none of them was behind the previous watermark, so neither is the
// partial count. A checkpoint stores the counts not yet emitted.
//
// The counts are a table per pane, keyed by auction alone (idCounts), and
// the pane of the last bid is remembered: bids come in time order but for
// the few out of order, so almost every bid costs one add to the current
// pane's table.
type q5LocalCount struct {
	panes map[int64]*idCounts // pane -> auction -> bids
	pane  int64               // the pane of cur
	cur   *idCounts           // panes[pane], or nil
	spare []*idCounts         // emptied tables of emitted panes
	state weir.ListState[q5Partial]
}

// InitializeState restores the counts a checkpoint held.
func (f *q5LocalCount) InitializeState(ctx *weir.StateInitializationContext) (err error) {
	if f.state, err = weir.GetOperatorListState[q5Partial](ctx, "q5-partials"); err != nil {
		return err
	}
	f.panes, f.cur = map[int64]*idCounts{}, nil
	for _, p := range f.state.Get() {
		f.counts(p.Pane).add(p.Auction, p.Count)
	}
	return nil
}

// SnapshotState stores the counts not emitted yet.
func (f *q5LocalCount) SnapshotState(weir.StateSnapshotContext) error {
	held := []q5Partial{}
	for pane, counts := range f.panes {
		for auction, n := range counts.all() {
			held = append(held, q5Partial{Auction: auction, Pane: pane, Count: n})
		}
	}
	f.state.Update(held)
	return nil
}

// counts is the table of pane, which it adds if there is none.
func (f *q5LocalCount) counts(pane int64) *idCounts {
	if f.cur != nil && f.pane == pane {
		return f.cur
	}
	m := f.panes[pane]
	if m == nil {
		if n := len(f.spare); n > 0 {
			m, f.spare = f.spare[n-1], f.spare[:n-1]
		} else {
			m = newIDCounts()
		}
		f.panes[pane] = m
	}
	f.pane, f.cur = pane, m
	return m
}

// ProcessElement counts a bid.
func (f *q5LocalCount) ProcessElement(_ *weir.ProcessContext[q5Partial], e nexmark.Event) error {
	if e.IsBid() {
		b := e.Bid()
		f.counts(reference.WindowStart(b.DateTime, reference.Q5Slide)).add(b.Auction, 1)
	}
	return nil
}

// OnWatermark emits the counts and forgets them.
func (f *q5LocalCount) OnWatermark(ctx *weir.ProcessContext[q5Partial], _ int64) error {
	for pane, counts := range f.panes {
		for auction, n := range counts.all() {
			ctx.CollectWithTimestamp(q5Partial{Auction: auction, Pane: pane, Count: n}, pane+reference.Q5Slide-1)
		}
		counts.reset()
		f.spare = append(f.spare, counts)
	}
	clear(f.panes)
	f.cur = nil
	return nil
}

// sumAgg adds up partial counts; its sums merge (Flink's AggregateFunction
// has merge), which lets the sliding windows add each partial count once,
// to its slice.
type sumAgg struct{}

func (sumAgg) CreateAccumulator() int64                { return 0 }
func (sumAgg) Add(p q5Partial, n int64) (int64, error) { return n + p.Count, nil }
func (sumAgg) GetResult(n int64) (int64, error)        { return n, nil }
func (sumAgg) Merge(a, b int64) (int64, error)         { return a + b, nil }

// q5Top ranks Q5's rows per window by count.
var q5Top = topOf[reference.Q5Row]{
	window: func(r reference.Q5Row) int64 { return r.WindowStart },
	rank:   func(r reference.Q5Row) int64 { return r.Count },
}
