package reference

import (
	"cmp"
	"iter"
	"slices"

	"github.com/weir-engine/weir/bench/nexmark"
)

// Winner is the winning bid of one auction.
type Winner struct {
	Auction, Seller, Category int64
	Bidder, Price, DateTime   int64 // of the winning bid
}

// ValidBid reports whether bid b may win auction a: it was placed while the
// auction was open, a.DateTime <= b.DateTime < a.Expires, and meets the
// reserve, b.Price >= a.Reserve. (Flink's SQL q4 takes BETWEEN, closed at
// both ends, and ignores the reserve; Beam's WinningBids excludes Expires and
// checks the reserve. We follow Beam and add Beam's implicit lower bound.)
func ValidBid(a *nexmark.Auction, b *nexmark.Bid) bool {
	return a.DateTime <= b.DateTime && b.DateTime < a.Expires && b.Price >= a.Reserve
}

// BetterBid reports whether b beats the current best bid best: a higher
// price wins; at equal prices the earlier bid wins, then the lower bidder ID.
func BetterBid(b, best *nexmark.Bid) bool {
	return cmp.Or(cmp.Compare(b.Price, best.Price), cmp.Compare(best.DateTime, b.DateTime),
		cmp.Compare(best.Bidder, b.Bidder)) > 0
}

// WinningBids returns the winning bid of every auction that has a valid bid
// (see ValidBid, BetterBid), sorted by Auction. All auctions count as
// closed: on a bounded stream the end of input closes every auction, so the
// result does not depend on when an engine fires its timers.
//
// Bids are matched to their auction whatever the arrival order. A bid can
// arrive before its auction, either because the generator let the bid name
// an auction ID a few ahead (both can then carry the same millisecond) or
// because of an out-of-order group; such a bid is still valid if the times
// allow. An engine therefore has to buffer bids for auctions it has not seen
// until its watermark passes the bid's DateTime.
func WinningBids(events iter.Seq[nexmark.Event]) []Winner {
	type state struct {
		auction *nexmark.Auction // nil until the auction arrives
		best    *nexmark.Bid
		early   []*nexmark.Bid // bids that arrived before the auction
	}
	auctions := map[int64]*state{}
	get := func(id int64) *state {
		s := auctions[id]
		if s == nil {
			s = &state{}
			auctions[id] = s
		}
		return s
	}
	offer := func(s *state, b *nexmark.Bid) {
		if ValidBid(s.auction, b) && (s.best == nil || BetterBid(b, s.best)) {
			s.best = b
		}
	}
	for e := range events {
		switch {
		case e.IsAuction():
			a := e.Auction() // only auctions and bids kept for later are copied to the heap
			s := get(a.ID)
			s.auction = &a
			for _, b := range s.early {
				offer(s, b)
			}
			s.early = nil
		case e.IsBid():
			b := e.Bid()
			s := get(b.Auction)
			if s.auction == nil {
				s.early = append(s.early, &b)
			} else {
				offer(s, &b)
			}
		}
	}
	var out []Winner
	for id, s := range auctions {
		if s.best == nil {
			continue
		}
		out = append(out, Winner{
			Auction: id, Seller: s.auction.Seller, Category: s.auction.Category,
			Bidder: s.best.Bidder, Price: s.best.Price, DateTime: s.best.DateTime,
		})
	}
	slices.SortFunc(out, func(a, b Winner) int { return cmp.Compare(a.Auction, b.Auction) })
	return out
}

// Q4Row is the average winning price of one category.
type Q4Row struct {
	Category int64
	Auctions int64 // auctions in the category with a winning bid
	Sum      int64 // sum of their winning prices
	Avg      int64 // Sum / Auctions, truncated
}

// Q4 reports, for every category with at least one won auction, the average
// winning price (average price for a category). Unlike Beam's Query4 the
// average is global rather than over sliding windows, and it is an integer
// so that engines can match it exactly. Rows are sorted by Category.
func Q4(events iter.Seq[nexmark.Event]) []Q4Row {
	byCategory := map[int64]*Q4Row{}
	for _, w := range WinningBids(events) {
		r := byCategory[w.Category]
		if r == nil {
			r = &Q4Row{Category: w.Category}
			byCategory[w.Category] = r
		}
		r.Auctions++
		r.Sum += w.Price
	}
	out := make([]Q4Row, 0, len(byCategory))
	for _, r := range byCategory {
		r.Avg = r.Sum / r.Auctions
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Q4Row) int { return cmp.Compare(a.Category, b.Category) })
	return out
}
