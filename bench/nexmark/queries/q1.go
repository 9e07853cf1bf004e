package queries

import (
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// Q1 is currency conversion: every bid with its price in euro cents.
func Q1(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q1Row] {
	return Q1Of(Source(env, cfg, SourceOptions{}))
}

// Q1Of is Q1 over a given event stream.
func Q1Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q1Row] {
	return weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[reference.Q1Row]) error {
		if e.IsBid() {
			auction, bidder, price, dateTime := e.BidNumbers() // in registers, not a Bid on the stack
			out.Collect(reference.Q1Row{Auction: auction, Bidder: bidder, Price: reference.DollarsToEuros(price), DateTime: dateTime})
		}
		return nil
	}).Name("q1")
}

// Q2 is selection: (auction, price) of the bids on every
// reference.Q2Modulus-th auction.
func Q2(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q2Row] {
	return Q2Of(Source(env, cfg, SourceOptions{}))
}

// Q2Of is Q2 over a given event stream.
func Q2Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q2Row] {
	return weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[reference.Q2Row]) error {
		if auction, _, price, _ := e.BidNumbers(); e.IsBid() && auction%reference.Q2Modulus == 0 {
			out.Collect(reference.Q2Row{Auction: auction, Price: price})
		}
		return nil
	}).Name("q2")
}
