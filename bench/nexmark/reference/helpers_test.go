package reference

import (
	"slices"

	"github.com/weir-engine/weir/bench/nexmark"
)

// T is a window-aligned event time (2024-01-01T00:00:00Z) the hand-built
// cases count from.
const T = nexmark.DefaultBaseTime

func person(id int64, name, state string, ts int64) nexmark.Event {
	return nexmark.PersonEvent(nexmark.Person{
		ID: id, Name: name, City: "City of " + name, State: state, DateTime: ts,
	})
}

func auction(id, seller, category, ts, expires, reserve int64) nexmark.Event {
	return nexmark.AuctionEvent(nexmark.Auction{
		ID: id, Seller: seller, Category: category, DateTime: ts, Expires: expires, Reserve: reserve,
	})
}

func bid(auction, bidder, price, ts int64) nexmark.Event {
	return nexmark.BidEvent(nexmark.Bid{
		Auction: auction, Bidder: bidder, Price: price, DateTime: ts,
	})
}

// generated returns the first n events of the default stream, with an
// out-of-order group size of ooo.
func generated(n, ooo int64) []nexmark.Event {
	c := nexmark.DefaultConfig()
	c.NumEvents = n
	c.OutOfOrderGroupSize = ooo
	return slices.Collect(nexmark.NewGenerator(c).All())
}
