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

// BidChecksum is one bid's contribution to Q0Result.Checksum: the unsigned,
// wrapping sum of its Auction, Bidder, Price, DateTime and the length of
// its Extra.
func BidChecksum(b *nexmark.Bid) uint64 {
	return uint64(b.Auction) + uint64(b.Bidder) + uint64(b.Price) + uint64(b.DateTime) + uint64(len(b.Extra))
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
