package beamnexmark

import (
	"reflect"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph/window"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// The join queries q3, q4 and q8 use CoGroupByKey. For q8 that is the
// natural Beam form (a join per tumbling window). For q3 and q4 it is a join
// in the global window, which only fires when the bounded input ends: right
// for this batch comparison, where the end of input closes everything (the
// reference's rule), but not a streaming query. Beam's Java Query3 instead
// keeps both sides in a stateful DoFn with a timer, and Query4 assigns
// auctions and bids to custom merging windows (AuctionOrBidWindowFn); both
// are far from simple in the Go SDK, whose state and timer support exists
// but whose merging WindowFns do not.

func init() {
	register.DoFn2x0[nexmark.Event, func(int64, q3Seller)](&q3SellersFn{})
	register.Emitter2[int64, q3Seller]()
	register.DoFn2x0[nexmark.Event, func(int64, int64)](&q3AuctionsFn{})
	register.Emitter2[int64, int64]()
	register.DoFn4x0[int64, func(*q3Seller) bool, func(*int64) bool, func(reference.Q3Row)](&q3JoinFn{})
	register.Iter1[q3Seller]()
	register.Iter1[int64]()
	register.Emitter1[reference.Q3Row]()

	register.DoFn2x0[nexmark.Event, func(int64, q4Auction)](&q4AuctionsFn{})
	register.Emitter2[int64, q4Auction]()
	register.DoFn2x0[nexmark.Event, func(int64, q4Bid)](&q4BidsFn{})
	register.Emitter2[int64, q4Bid]()
	register.DoFn4x0[int64, func(*q4Auction) bool, func(*q4Bid) bool, func(int64, int64)](&q4WinnerFn{})
	register.Iter1[q4Auction]()
	register.Iter1[q4Bid]()
	register.Combiner3[q4Acc, int64, q4Acc](&q4Fn{})
	register.Function2x1[int64, q4Acc, reference.Q4Row](toQ4Row)

	register.DoFn2x0[nexmark.Event, func(int64, string)](&q8PersonsFn{})
	register.Emitter2[int64, string]()
	register.DoFn2x0[nexmark.Event, func(int64, int64)](&q8AuctionsFn{})
	register.DoFn5x0[beam.Window, int64, func(*string) bool, func(*int64) bool, func(reference.Q8Row)](&q8JoinFn{})
	register.Iter1[string]()
	register.Emitter1[reference.Q8Row]()

	for _, t := range []any{q3Seller{}, q4Auction{}, q4Bid{}, q4Acc{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
}

// q3Seller is a person in one of q3's states.
type q3Seller struct{ Name, City, State string }

type q3SellersFn struct{}

func (q3SellersFn) ProcessElement(e nexmark.Event, emit func(int64, q3Seller)) {
	if p := e.Person(); e.IsPerson() && reference.Q3State(p.State) {
		emit(p.ID, q3Seller{Name: p.Name, City: p.City, State: p.State})
	}
}

type q3AuctionsFn struct{}

func (q3AuctionsFn) ProcessElement(e nexmark.Event, emit func(int64, int64)) {
	if a := e.Auction(); e.IsAuction() && a.Category == reference.Q3Category {
		emit(a.Seller, a.ID)
	}
}

type q3JoinFn struct{}

func (q3JoinFn) ProcessElement(_ int64, sellers func(*q3Seller) bool, auctions func(*int64) bool, emit func(reference.Q3Row)) {
	var s q3Seller
	if !sellers(&s) { // person IDs are unique: at most one seller
		return
	}
	var id int64
	for auctions(&id) {
		emit(reference.Q3Row{Name: s.Name, City: s.City, State: s.State, AuctionID: id})
	}
}

// Q3 joins category-10 auctions with their sellers in OR, ID or CA:
// PCollection<reference.Q3Row>, by CoGroupByKey in the global window.
func Q3(s beam.Scope, events beam.PCollection) beam.PCollection {
	s = s.Scope("Q3")
	sellers := beam.ParDo(s, &q3SellersFn{}, events)
	auctions := beam.ParDo(s, &q3AuctionsFn{}, events)
	return beam.ParDo(s, &q3JoinFn{}, beam.CoGroupByKey(s, sellers, auctions))
}

// q4Auction is what q4 needs of an auction.
type q4Auction struct{ DateTime, Expires, Reserve, Category int64 }

// q4Bid is what q4 needs of a bid.
type q4Bid struct{ Bidder, Price, DateTime int64 }

type q4AuctionsFn struct{}

func (q4AuctionsFn) ProcessElement(e nexmark.Event, emit func(int64, q4Auction)) {
	if a := e.Auction(); e.IsAuction() {
		emit(a.ID, q4Auction{DateTime: a.DateTime, Expires: a.Expires, Reserve: a.Reserve, Category: a.Category})
	}
}

type q4BidsFn struct{}

func (q4BidsFn) ProcessElement(e nexmark.Event, emit func(int64, q4Bid)) {
	if b := e.Bid(); e.IsBid() {
		emit(b.Auction, q4Bid{Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime})
	}
}

// q4WinnerFn emits (category, winning price) for an auction with a valid
// bid, choosing the winner with reference.ValidBid and reference.BetterBid.
type q4WinnerFn struct{}

func (q4WinnerFn) ProcessElement(_ int64, auctions func(*q4Auction) bool, bids func(*q4Bid) bool, emit func(int64, int64)) {
	var qa q4Auction
	if !auctions(&qa) {
		return // bids on an auction that never came
	}
	a := &nexmark.Auction{DateTime: qa.DateTime, Expires: qa.Expires, Reserve: qa.Reserve}
	var best *nexmark.Bid
	var qb q4Bid
	for bids(&qb) {
		b := &nexmark.Bid{Bidder: qb.Bidder, Price: qb.Price, DateTime: qb.DateTime}
		if reference.ValidBid(a, b) && (best == nil || reference.BetterBid(b, best)) {
			best = b
		}
	}
	if best != nil {
		emit(qa.Category, best.Price)
	}
}

// q4Acc sums one category's winning prices.
type q4Acc struct{ Auctions, Sum int64 }

type q4Fn struct{}

func (q4Fn) CreateAccumulator() q4Acc { return q4Acc{} }
func (q4Fn) AddInput(a q4Acc, price int64) q4Acc {
	return q4Acc{Auctions: a.Auctions + 1, Sum: a.Sum + price}
}
func (q4Fn) MergeAccumulators(a, b q4Acc) q4Acc {
	return q4Acc{Auctions: a.Auctions + b.Auctions, Sum: a.Sum + b.Sum}
}
func (q4Fn) ExtractOutput(a q4Acc) q4Acc { return a }
func toQ4Row(category int64, a q4Acc) reference.Q4Row {
	return reference.Q4Row{Category: category, Auctions: a.Auctions, Sum: a.Sum, Avg: a.Sum / a.Auctions}
}

// Q4 averages each category's winning prices: PCollection<reference.Q4Row>,
// by CoGroupByKey of auctions and bids in the global window.
func Q4(s beam.Scope, events beam.PCollection) beam.PCollection {
	s = s.Scope("Q4")
	auctions := beam.ParDo(s, &q4AuctionsFn{}, events)
	bids := beam.ParDo(s, &q4BidsFn{}, events)
	winners := beam.ParDo(s, &q4WinnerFn{}, beam.CoGroupByKey(s, auctions, bids))
	return beam.ParDo(s, toQ4Row, beam.CombinePerKey(s, &q4Fn{}, winners))
}

type q8PersonsFn struct{}

func (q8PersonsFn) ProcessElement(e nexmark.Event, emit func(int64, string)) {
	if p := e.Person(); e.IsPerson() {
		emit(p.ID, p.Name)
	}
}

type q8AuctionsFn struct{}

func (q8AuctionsFn) ProcessElement(e nexmark.Event, emit func(int64, int64)) {
	if a := e.Auction(); e.IsAuction() {
		emit(a.Seller, a.ID)
	}
}

// q8JoinFn emits one row per person who registered and sold in the window.
type q8JoinFn struct{}

func (q8JoinFn) ProcessElement(w beam.Window, id int64, names func(*string) bool, auctions func(*int64) bool, emit func(reference.Q8Row)) {
	var name string
	var auction int64
	if names(&name) && auctions(&auction) {
		emit(reference.Q8Row{PersonID: id, Name: name, WindowStart: w.(window.IntervalWindow).Start.Milliseconds()})
	}
}

// Q8 finds the people who registered and opened an auction in the same
// tumbling window: PCollection<reference.Q8Row>, by CoGroupByKey per window.
func Q8(s beam.Scope, events beam.PCollection) beam.PCollection {
	s = s.Scope("Q8")
	w := beam.WindowInto(s, window.NewFixedWindows(time.Duration(reference.WindowSize)*time.Millisecond), events)
	persons := beam.ParDo(s, &q8PersonsFn{}, w)
	auctions := beam.ParDo(s, &q8AuctionsFn{}, w)
	return beam.ParDo(s, &q8JoinFn{}, beam.CoGroupByKey(s, persons, auctions))
}
