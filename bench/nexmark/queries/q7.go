package queries

import (
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// Q7 is highest bid: per tumbling window of reference.WindowSize, every bid
// with the window's highest price. It is a two-phase maximum, as Flink
// plans a global window aggregate with local-global aggregation: each
// subtask keeps its own highest bids per window where the bids are read
// (localTop, chained to the source) and sends them at each watermark to a
// stage keyed by window (windowTop), which keeps those with the window's
// maximum and emits them at the window's end. Only a few rows per window
// and watermark cross the keyBy, so the query's work stays where the events
// are generated and scales with the source's parallelism. Keyed by auction
// instead, as the query's text suggests, the subtask owning the hot auction
// (half of all bids, see nexmark.Config.HotAuctionRatio) would receive three
// quarters of the bids at parallelism 2.
func Q7(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q7Row] {
	return Q7Of(Source(env, cfg, SourceOptions{}))
}

// Q7Of is Q7 over a given event stream.
func Q7Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q7Row] {
	bids := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[reference.Q7Row]) error {
		if b := e.Bid(); e.IsBid() {
			out.Collect(reference.Q7Row{
				WindowStart: reference.WindowStart(b.DateTime, reference.WindowSize),
				Auction:     b.Auction, Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime,
			})
		}
		return nil
	}).Name("q7-bids")
	return twoPhaseTop(bids, q7Top, "q7")
}

// q7Top ranks Q7's bids per window by price.
var q7Top = topOf[reference.Q7Row]{
	window: func(r reference.Q7Row) int64 { return r.WindowStart },
	rank:   func(r reference.Q7Row) int64 { return r.Price },
}
