package reference

import (
	"iter"

	"github.com/weir-engine/weir/bench/nexmark"
)

// Q0Result is what q0 (pass-through) reports. As in Flink's Nexmark q0
// (`SELECT auction, bidder, price, dateTime, extra FROM bid` into a
// discarding sink), only bids pass through; the result counts them and
// carries a checksum that depends on every bid, so that neither a compiler
// nor an engine can skip the work.
type Q0Result struct {
	Bids int64
	// Checksum is the wrapping sum of BidChecksum over all bids, so it does
	// not depend on their order.
	Checksum uint64
}

// Add returns r with o's counts and checksum added.
func (r Q0Result) Add(o Q0Result) Q0Result {
	return Q0Result{Bids: r.Bids + o.Bids, Checksum: r.Checksum + o.Checksum}
}

// Q0Row is a bid as q0 projects it: `SELECT auction, bidder, price,
// dateTime, extra FROM bid`.
type Q0Row struct {
	Auction, Bidder, Price, DateTime int64
	Extra                            string
}

// Q0RowOf projects b.
func Q0RowOf(b *nexmark.Bid) Q0Row {
	return Q0Row{Auction: b.Auction, Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime, Extra: b.Extra}
}

// Checksum is the row's contribution to Q0Result.Checksum: the unsigned,
// wrapping sum of its Auction, Bidder, Price, DateTime and the length of
// its Extra.
func (r *Q0Row) Checksum() uint64 {
	return uint64(r.Auction) + uint64(r.Bidder) + uint64(r.Price) + uint64(r.DateTime) + uint64(len(r.Extra))
}

// BidChecksum is one bid's contribution to Q0Result.Checksum, that of its
// Q0Row.
func BidChecksum(b *nexmark.Bid) uint64 {
	row := Q0RowOf(b)
	return row.Checksum()
}

// Q0 passes every bid through and counts it.
func Q0(events iter.Seq[nexmark.Event]) Q0Result {
	var r Q0Result
	for e := range events {
		if e.IsBid() {
			r.Bids++
			r.Checksum += BidChecksum(new(e.Bid()))
		}
	}
	return r
}
