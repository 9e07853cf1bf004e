package queries

import (
	"slices"

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
	bids := weir.ProcessStream(events, weir.ProcessFunction[nexmark.Event, q4Bid](&q4BidFilter{})).Name("q4-bids")
	auctions := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[q4Auction]) error {
		if a := e.Auction(); e.IsAuction() {
			out.Collect(q4Auction{ID: a.ID, Seller: a.Seller, Category: a.Category, DateTime: a.DateTime, Expires: a.Expires, Reserve: a.Reserve})
		}
		return nil
	}).Name("q4-auctions")
	return weir.CoProcess(weir.Connect(
		weir.KeyBy(auctions, func(a q4Auction) int64 { return a.ID }),
		weir.KeyBy(bids, func(b q4Bid) int64 { return b.Auction })),
		weir.KeyedCoProcessFunction[int64, q4Auction, q4Bid, reference.Winner](&winningBid{})).Name("q4-winning-bids")
}

// q4BidFilter learns the auctions of its own subtask's events and keeps,
// between two watermarks, the best valid bid of each of them: it sends on,
// before each watermark, each auction's best bid if it improved since the
// last one, and drops the other bids on the auctions it knows (invalid
// ones, or ones that lost to a better valid bid). The join keeps the best
// valid bid per auction, so what it drops changes nothing there, and the
// join's timer at an auction's expiry fires on a watermark that this bid
// stage's flush precedes. Bids on auctions it does not know (another
// subtask's, or not created yet) wait for the watermark in case the auction
// comes, and are then checked or sent as they are. Half of the bids are on
// the hot auction, so most bids stop here, before the keyBy, as in Flink's
// local-global aggregation; the source's blocks (BlockEvents) keep the
// auctions a subtask's bids name mostly its own at any parallelism.
//
// The auctions are a cache (see q4FilterAuctions): forgetting one only
// lets more bids through, so it is not checkpointed; the bids not sent yet
// are.
type q4BidFilter struct {
	auctions *[q4FilterAuctions]q4Seen // direct-mapped by auction ID
	dirty    []*q4Seen                 // the auctions whose best bid was not sent yet
	pending  []q4Bid                   // bids on auctions not known, held for the watermark
	state    weir.ListState[q4Bid]
}

// q4FilterAuctions is the size of a q4BidFilter's table of auctions, which
// holds an auction at its ID modulo the size: Nexmark's IDs are sequential
// and its bids name the 100 most recent auctions and 10 to come, so these
// stay apart. An auction that another one with the same slot replaced is
// forgotten, and the bids on it pass unfiltered.
const q4FilterAuctions = 1024

// q4Seen is an auction a q4BidFilter knows and its best valid bid so far;
// dirty says that bid was not sent yet.
type q4Seen struct {
	open         q4Open
	known, dirty bool // the slot holds an auction; its best bid was not sent
}

// InitializeState restores the bids a checkpoint held, to be sent at the
// next watermark.
func (f *q4BidFilter) InitializeState(ctx *weir.StateInitializationContext) (err error) {
	if f.state, err = weir.GetOperatorListState[q4Bid](ctx, "q4-unsent-bids"); err != nil {
		return err
	}
	f.auctions = new([q4FilterAuctions]q4Seen)
	f.pending = append(f.pending[:0], f.state.Get()...)
	return nil
}

// SnapshotState stores the bids not sent yet.
func (f *q4BidFilter) SnapshotState(weir.StateSnapshotContext) error {
	held := slices.Clone(f.pending)
	for _, s := range f.dirty {
		if s.dirty {
			held = append(held, s.open.Best)
		}
	}
	f.state.Update(held)
	return nil
}

// ProcessElement learns an auction, or takes a bid.
func (f *q4BidFilter) ProcessElement(ctx *weir.ProcessContext[q4Bid], e nexmark.Event) error {
	switch {
	case e.IsBid():
		b := e.Bid()
		bid := q4Bid{Auction: b.Auction, Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime}
		s := f.lookup(bid.Auction)
		if s == nil {
			f.pending = append(f.pending, bid)
			return nil
		}
		f.offer(s, bid)
	case e.IsAuction():
		a := e.Auction()
		auction := q4Auction{ID: a.ID, Seller: a.Seller, Category: a.Category, DateTime: a.DateTime, Expires: a.Expires, Reserve: a.Reserve}
		f.learn(auction)
	}
	return nil
}

// lookup returns the auction id if it is known, or nil.
func (f *q4BidFilter) lookup(id int64) *q4Seen {
	s := &f.auctions[uint64(id)%q4FilterAuctions]
	if !s.known || s.open.Auction.ID != id {
		return nil
	}
	return s
}

// learn remembers a in its slot; the auction that was there is forgotten,
// and its unsent bid waits for the watermark with the bids on unknown
// auctions.
func (f *q4BidFilter) learn(a q4Auction) {
	s := &f.auctions[uint64(a.ID)%q4FilterAuctions]
	if s.dirty {
		f.pending = append(f.pending, s.open.Best)
	}
	*s = q4Seen{open: q4Open{Auction: a}, known: true}
}

// offer keeps b if it is the best valid bid on s's auction so far.
func (f *q4BidFilter) offer(s *q4Seen, b q4Bid) {
	if !s.open.offer(b) {
		return
	}
	if !s.dirty {
		s.dirty = true
		f.dirty = append(f.dirty, s)
	}
}

// OnWatermark checks the bids that waited for their auction, sends those
// whose auction is still unknown, then sends every auction's improved best
// bid.
func (f *q4BidFilter) OnWatermark(ctx *weir.ProcessContext[q4Bid], _ int64) error {
	for _, b := range f.pending {
		if s := f.lookup(b.Auction); s != nil {
			f.offer(s, b)
		} else {
			ctx.CollectWithTimestamp(b, b.DateTime)
		}
	}
	f.pending = f.pending[:0]
	for i, s := range f.dirty {
		if s.dirty {
			s.dirty = false
			ctx.CollectWithTimestamp(s.open.Best, s.open.Best.DateTime)
		}
		f.dirty[i] = nil
	}
	f.dirty = f.dirty[:0]
	return nil
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

// winningBid keeps per auction ID the auction and its best valid bid so
// far (one state, read once per bid), and the bids that came before the
// auction. An event-time timer at Expires-1 emits the winner: once the
// watermark is there, every bid placed before Expires has arrived.
//
// A bid that comes after its auction closed is invalid (it is not late,
// so it was placed after the watermark that closed the auction), and is
// dropped when closed still remembers the auction: a cache of the
// auctions this subtask closed, by ID modulo its size, which covers the
// auctions bids name (the hot one and the last 100). A bid on a closed
// auction the cache forgot (another closed since in its slot, or a
// restore, which starts it empty) waits in early for an auction that does
// not come again: memory, never a wrong winner. Keyed state for it would
// hold one entry for every auction ever closed.
type winningBid struct {
	open   weir.ValueState[q4Open]
	early  weir.ListState[q4Bid]
	closed *[q4ClosedAuctions]q4Closed
}

// q4ClosedAuctions is the size of winningBid's cache of closed auctions.
const q4ClosedAuctions = 4096

// q4Closed is a slot of winningBid's cache of closed auctions.
type q4Closed struct {
	id  int64
	set bool
}

// q4Open is an auction not closed yet and its best valid bid so far.
type q4Open struct {
	Auction q4Auction
	Best    q4Bid
	HasBest bool
}

// Open registers the state.
func (f *winningBid) Open(rc *weir.KeyedRuntimeContext[int64]) (err error) {
	if f.open, err = weir.GetValueState[q4Open](rc, "open"); err != nil {
		return err
	}
	if f.early, err = weir.GetListState[q4Bid](rc, "early"); err != nil {
		return err
	}
	f.closed = new([q4ClosedAuctions]q4Closed)
	return nil
}

// ProcessElement1 takes the auction, offers it the bids that came first and
// sets the timer at its expiry.
func (f *winningBid) ProcessElement1(ctx *weir.KeyedContext[int64, reference.Winner], a q4Auction) error {
	o := q4Open{Auction: a}
	for _, b := range f.early.Get() {
		o.offer(b)
	}
	f.early.Clear()
	f.open.Update(o)
	ctx.TimerService().RegisterEventTimeTimer(a.Expires - 1)
	return nil
}

// ProcessElement2 takes a bid.
func (f *winningBid) ProcessElement2(_ *weir.KeyedContext[int64, reference.Winner], b q4Bid) error {
	if o, ok := f.open.Value(); ok {
		if o.offer(b) {
			f.open.Update(o)
		}
		return nil
	}
	if c := f.closed[uint64(b.Auction)%q4ClosedAuctions]; !c.set || c.id != b.Auction {
		f.early.Add(b)
	}
	return nil
}

// offer keeps b if it is the best valid bid so far, and says whether it did.
func (o *q4Open) offer(b q4Bid) bool {
	if !o.Auction.valid(b) || o.HasBest && !b.better(o.Best) {
		return false
	}
	o.Best, o.HasBest = b, true
	return true
}

// OnTimer emits the winner of the expired auction and forgets it.
func (f *winningBid) OnTimer(ctx *weir.KeyedContext[int64, reference.Winner], _ int64) error {
	o, ok := f.open.Value()
	if !ok {
		return nil
	}
	if a, b := o.Auction, o.Best; o.HasBest {
		ctx.Collect(reference.Winner{Auction: a.ID, Seller: a.Seller, Category: a.Category, Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime})
	}
	f.open.Clear()
	f.closed[uint64(o.Auction.ID)%q4ClosedAuctions] = q4Closed{id: o.Auction.ID, set: true}
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
