package reference

import (
	"cmp"
	"iter"
	"slices"

	"github.com/weir-engine/weir/bench/nexmark"
)

// Q7Row is a highest bid of one tumbling window.
type Q7Row struct {
	WindowStart                      int64 // the window is [WindowStart, WindowStart+WindowSize)
	Auction, Bidder, Price, DateTime int64 // the bid
}

// Q7 finds the highest bid: for every tumbling window of WindowSize ms that
// holds at least one bid, every bid whose price equals the window's maximum
// (ties are all reported, as in Beam's Query7). Rows are sorted by
// (WindowStart, DateTime, Auction, Bidder, Price).
func Q7(events iter.Seq[nexmark.Event]) []Q7Row {
	type window struct {
		top  int64
		bids []Q7Row
	}
	windows := map[int64]*window{}
	for e := range events {
		if !e.IsBid() {
			continue
		}
		b := e.Bid()
		start := WindowStart(b.DateTime, WindowSize)
		w := windows[start]
		if w == nil {
			w = &window{top: b.Price}
			windows[start] = w
		}
		switch {
		case b.Price > w.top:
			w.top, w.bids = b.Price, w.bids[:0]
		case b.Price < w.top:
			continue
		}
		w.bids = append(w.bids, Q7Row{WindowStart: start, Auction: b.Auction, Bidder: b.Bidder, Price: b.Price, DateTime: b.DateTime})
	}
	var out []Q7Row
	for _, w := range windows {
		out = append(out, w.bids...)
	}
	slices.SortFunc(out, CompareQ7)
	return out
}

// CompareQ7 orders Q7 rows by (WindowStart, DateTime, Auction, Bidder, Price).
func CompareQ7(a, b Q7Row) int {
	return cmp.Or(cmp.Compare(a.WindowStart, b.WindowStart), cmp.Compare(a.DateTime, b.DateTime),
		cmp.Compare(a.Auction, b.Auction), cmp.Compare(a.Bidder, b.Bidder), cmp.Compare(a.Price, b.Price))
}
