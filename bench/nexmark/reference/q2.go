package reference

import (
	"cmp"
	"iter"
	"slices"

	"github.com/weir-engine/weir/bench/nexmark"
)

// Q2Modulus selects the auctions q2 reports: those whose ID is a multiple of
// it. The original CQL lists five auction IDs; the Beam and Flink versions
// use every 123rd auction so the output grows with the input.
const Q2Modulus = 123

// Q2Row is one selected bid: (auction, price).
type Q2Row struct {
	Auction, Price int64
}

// Q2 selects the bids on auctions whose ID is a multiple of Q2Modulus.
// Rows are sorted by (Auction, Price); equal rows are all kept.
func Q2(events iter.Seq[nexmark.Event]) []Q2Row {
	var out []Q2Row
	for e := range events {
		if b := e.Bid(); e.IsBid() && b.Auction%Q2Modulus == 0 {
			out = append(out, Q2Row{Auction: b.Auction, Price: b.Price})
		}
	}
	slices.SortFunc(out, CompareQ2)
	return out
}

// CompareQ2 orders Q2 rows by (Auction, Price).
func CompareQ2(a, b Q2Row) int {
	return cmp.Or(cmp.Compare(a.Auction, b.Auction), cmp.Compare(a.Price, b.Price))
}
