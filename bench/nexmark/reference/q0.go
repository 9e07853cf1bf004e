package reference

import (
	"iter"

	"github.com/weir-engine/weir/bench/nexmark"
)

// Q0Result is what q0 (pass-through) reports: how many events of each kind
// went through, and a checksum that depends on every event so that neither a
// compiler nor an engine can skip the work.
type Q0Result struct {
	Events, Persons, Auctions, Bids int64
	// Checksum is the wrapping sum of Checksum over all events, so it does
	// not depend on their order.
	Checksum uint64
}

// Checksum is one event's contribution to Q0Result.Checksum: for a person
// ID+DateTime, for an auction ID+DateTime, for a bid
// Auction+Bidder+Price+DateTime, as unsigned sums that wrap.
func Checksum(e nexmark.Event) uint64 {
	switch {
	case e.Person != nil:
		return uint64(e.Person.ID) + uint64(e.Person.DateTime)
	case e.Auction != nil:
		return uint64(e.Auction.ID) + uint64(e.Auction.DateTime)
	case e.Bid != nil:
		b := e.Bid
		return uint64(b.Auction) + uint64(b.Bidder) + uint64(b.Price) + uint64(b.DateTime)
	}
	return 0
}

// Q0 passes every event through and counts it.
func Q0(events iter.Seq[nexmark.Event]) Q0Result {
	var r Q0Result
	for e := range events {
		r.Events++
		switch {
		case e.Person != nil:
			r.Persons++
		case e.Auction != nil:
			r.Auctions++
		case e.Bid != nil:
			r.Bids++
		}
		r.Checksum += Checksum(e)
	}
	return r
}
