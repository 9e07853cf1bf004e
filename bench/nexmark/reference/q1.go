package reference

import (
	"iter"

	"github.com/weir-engine/weir/bench/nexmark"
)

// Q1Row is a bid with its price in euro cents: q1's
// SELECT auction, DOLTOEUR(price), bidder, datetime FROM bid.
type Q1Row struct {
	Auction, Bidder, Price, DateTime int64
}

// DollarsToEuros converts a price in dollar cents to euro cents at the rate
// the published Flink Nexmark queries use (0.908 * price), truncated towards
// zero in integer arithmetic: price*908/1000. Beam's Java Query1 uses
// price*89/100 instead; we follow the SQL definition.
func DollarsToEuros(cents int64) int64 { return cents * 908 / 1000 }

// Q1 converts every bid's price (currency conversion). Rows are sorted by
// (DateTime, Auction, Bidder, Price).
func Q1(events iter.Seq[nexmark.Event]) []Q1Row {
	var out []Q1Row
	for e := range events {
		if b := e.Bid(); e.IsBid() {
			out = append(out, Q1Row{Auction: b.Auction, Bidder: b.Bidder, Price: DollarsToEuros(b.Price), DateTime: b.DateTime})
		}
	}
	sortByTimeThen(out, func(r Q1Row) int64 { return r.DateTime }, CompareQ1)
	return out
}

// CompareQ1 orders Q1 rows by (DateTime, Auction, Bidder, Price).
func CompareQ1(a, b Q1Row) int {
	if c := compareInt(a.DateTime, b.DateTime); c != 0 {
		return c
	}
	if c := compareInt(a.Auction, b.Auction); c != 0 {
		return c
	}
	if c := compareInt(a.Bidder, b.Bidder); c != 0 {
		return c
	}
	return compareInt(a.Price, b.Price)
}
