package queries

import (
	"testing"

	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// TestQ7BucketsSpreadTheBids checks why Q7's first stage is keyed by
// q7Bucket and not by auction: on the default stream the hot auction holds
// about half of the bids, so one subtask would get most of them, while
// every bucket holds between half and twice its even share.
func TestQ7BucketsSpreadTheBids(t *testing.T) {
	cfg := nexmark.DefaultConfig()
	cfg.NumEvents = 200_000
	perBucket := make([]int, q7Buckets)
	perAuction := map[int64]int{}
	bids := 0
	for e := range nexmark.NewGenerator(cfg).All() {
		if !e.IsBid() {
			continue
		}
		b := e.Bid()
		bids++
		perBucket[q7Bucket(reference.Q7Row{Auction: b.Auction, Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime})]++
		perAuction[b.Auction]++
	}
	// The hot auction changes every 100 auctions; count the bids on the
	// hot auction of their time as the largest share of any auction over
	// a short stretch would: the 100 busiest auctions.
	hot := 0
	for _, n := range perAuction {
		if n > bids/len(perAuction)*20 {
			hot += n
		}
	}
	if hot < bids*2/5 {
		t.Fatalf("hot auctions hold %d of %d bids; the test's premise (half the bids on hot auctions) does not hold", hot, bids)
	}
	even := bids / q7Buckets
	for i, n := range perBucket {
		if n < even/2 || n > even*2 {
			t.Errorf("bucket %d holds %d bids, want between %d and %d", i, n, even/2, even*2)
		}
	}
}
