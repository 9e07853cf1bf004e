package queries

import (
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// q4Auction is what the winning-bid join keeps of an auction.
type q4Auction struct {
	ID, Seller, Category       int64
	DateTime, Expires, Reserve int64
}

// q4Bid is what the winning-bid join keeps of a bid.
type q4Bid struct {
	Auction, Bidder, Price, DateTime int64
}

// valid is reference.ValidBid.
func (a q4Auction) valid(b q4Bid) bool {
	return a.DateTime <= b.DateTime && b.DateTime < a.Expires && b.Price >= a.Reserve
}

// better is reference.BetterBid.
func (b q4Bid) better(best q4Bid) bool {
	if b.Price != best.Price {
		return b.Price > best.Price
	}
	if b.DateTime != best.DateTime {
		return b.DateTime < best.DateTime
	}
	return b.Bidder < best.Bidder
}

// WinningBids emits the winning bid of every auction with a valid bid
// (reference.WinningBids), each when the watermark passes its auction's
// expiry.
func WinningBids(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Winner] {
	auctions := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[q4Auction]) error {
		if a := e.Auction(); e.IsAuction() {
			out.Collect(q4Auction{ID: a.ID, Seller: a.Seller, Category: a.Category, DateTime: a.DateTime, Expires: a.Expires, Reserve: a.Reserve})
		}
		return nil
	}).Name("q4-auctions")
	bids := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[q4Bid]) error {
		if b := e.Bid(); e.IsBid() {
			out.Collect(q4Bid{Auction: b.Auction, Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime})
		}
		return nil
	}).Name("q4-bids")
	return weir.CoProcess(weir.Connect(
		weir.KeyBy(auctions, func(a q4Auction) int64 { return a.ID }),
		weir.KeyBy(bids, func(b q4Bid) int64 { return b.Auction })),
		weir.KeyedCoProcessFunction[int64, q4Auction, q4Bid, reference.Winner](&winningBid{})).Name("q4-winning-bids")
}

// Q4 is the average winning price per category (reference.Q4), emitted
// when the input ends.
func Q4(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q4Row] {
	return Q4Of(Source(env, cfg, SourceOptions{}))
}

// Q4Of is Q4 over a given event stream.
func Q4Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q4Row] {
	winners := WinningBids(events)
	return weir.Process(weir.KeyBy(winners, func(w reference.Winner) int64 { return w.Category }),
		weir.KeyedProcessFunction[int64, reference.Winner, reference.Q4Row](&categoryAverage{})).Name("q4-average")
}

// winningBid keeps per auction ID the auction, its best valid bid so far,
// and the bids that came before the auction. An event-time timer at
// Expires-1 emits the winner: once the watermark is there, every bid placed
// before Expires has arrived. Closed remembers an auction that was emitted,
// so that later (necessarily invalid) bids are dropped instead of kept.
type winningBid struct {
	auction weir.ValueState[q4Auction]
	best    weir.ValueState[q4Bid]
	early   weir.ListState[q4Bid]
	closed  weir.ValueState[bool]
}

// Open registers the state.
func (f *winningBid) Open(rc *weir.KeyedRuntimeContext[int64]) (err error) {
	if f.auction, err = weir.GetValueState[q4Auction](rc, "auction"); err != nil {
		return err
	}
	if f.best, err = weir.GetValueState[q4Bid](rc, "best"); err != nil {
		return err
	}
	if f.early, err = weir.GetListState[q4Bid](rc, "early"); err != nil {
		return err
	}
	f.closed, err = weir.GetValueState[bool](rc, "closed")
	return err
}

// ProcessElement1 takes the auction, offers it the bids that came first and
// sets the timer at its expiry.
func (f *winningBid) ProcessElement1(ctx *weir.KeyedContext[int64, reference.Winner], a q4Auction) error {
	f.auction.Update(a)
	for _, b := range f.early.Get() {
		f.offer(a, b)
	}
	f.early.Clear()
	ctx.TimerService().RegisterEventTimeTimer(a.Expires - 1)
	return nil
}

// ProcessElement2 takes a bid.
func (f *winningBid) ProcessElement2(_ *weir.KeyedContext[int64, reference.Winner], b q4Bid) error {
	if a, ok := f.auction.Value(); ok {
		f.offer(a, b)
		return nil
	}
	if closed, _ := f.closed.Value(); !closed {
		f.early.Add(b)
	}
	return nil
}

func (f *winningBid) offer(a q4Auction, b q4Bid) {
	if !a.valid(b) {
		return
	}
	if best, ok := f.best.Value(); !ok || b.better(best) {
		f.best.Update(b)
	}
}

// OnTimer emits the winner of the expired auction and forgets it.
func (f *winningBid) OnTimer(ctx *weir.KeyedContext[int64, reference.Winner], _ int64) error {
	a, ok := f.auction.Value()
	if !ok {
		return nil
	}
	if b, ok := f.best.Value(); ok {
		ctx.Collect(reference.Winner{Auction: a.ID, Seller: a.Seller, Category: a.Category, Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime})
	}
	f.auction.Clear()
	f.best.Clear()
	f.closed.Update(true)
	return nil
}

// categoryAverage sums the winning prices of a category and emits its
// Q4Row when the input ends.
type categoryAverage struct {
	row weir.ValueState[reference.Q4Row]
}

// Open registers the state.
func (f *categoryAverage) Open(rc *weir.KeyedRuntimeContext[int64]) (err error) {
	f.row, err = weir.GetValueState[reference.Q4Row](rc, "row")
	return err
}

// ProcessElement adds a winner.
func (f *categoryAverage) ProcessElement(ctx *weir.KeyedContext[int64, reference.Q4Row], w reference.Winner) error {
	r, ok := f.row.Value()
	if !ok {
		r.Category = w.Category
		ctx.TimerService().RegisterEventTimeTimer(endOfInput)
	}
	r.Auctions++
	r.Sum += w.Price
	f.row.Update(r)
	return nil
}

// OnTimer emits the category's average.
func (f *categoryAverage) OnTimer(ctx *weir.KeyedContext[int64, reference.Q4Row], _ int64) error {
	if r, ok := f.row.Value(); ok {
		r.Avg = r.Sum / r.Auctions
		ctx.Collect(r)
		f.row.Clear()
	}
	return nil
}
