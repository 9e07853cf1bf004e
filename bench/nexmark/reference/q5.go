package reference

import (
	"cmp"
	"iter"
	"slices"

	"github.com/weir-engine/weir/bench/nexmark"
)

// Q5Row is a hot item: an auction with the most bids in one window.
type Q5Row struct {
	WindowStart int64 // the window is [WindowStart, WindowStart+WindowSize)
	Auction     int64
	Count       int64 // bids on Auction in the window
}

// Q5 finds the hot items: for every sliding window of WindowSize ms starting
// every Q5Slide ms (see SlidingWindowStarts) that holds at least one bid, the
// auction or auctions with the most bids in it. Ties are all reported, as in
// Beam's Query5. Rows are sorted by (WindowStart, Auction).
func Q5(events iter.Seq[nexmark.Event]) []Q5Row {
	return hotItems(events, WindowSize, Q5Slide)
}

// hotItems is Q5 for any size that is a multiple of slide. It counts each bid
// once, in its slide-long pane, and sums size/slide panes per window at the
// end, rather than counting each bid in all size/slide windows.
func hotItems(events iter.Seq[nexmark.Event], size, slide int64) []Q5Row {
	panes := map[int64]map[int64]int64{} // pane start -> auction -> bids
	for e := range events {
		if !e.IsBid() {
			continue
		}
		b := e.Bid()
		p := WindowStart(b.DateTime, slide)
		counts := panes[p]
		if counts == nil {
			counts = map[int64]int64{}
			panes[p] = counts
		}
		counts[b.Auction]++
	}

	windows := map[int64]bool{}
	for p := range panes {
		SlidingWindowStarts(p, size, slide, func(w int64) { windows[w] = true })
	}
	var out []Q5Row
	sum := map[int64]int64{}
	for w := range windows {
		clear(sum)
		for p := w; p < w+size; p += slide {
			for auction, n := range panes[p] {
				sum[auction] += n
			}
		}
		var top int64
		for _, n := range sum {
			top = max(top, n)
		}
		for auction, n := range sum {
			if n == top {
				out = append(out, Q5Row{WindowStart: w, Auction: auction, Count: n})
			}
		}
	}
	slices.SortFunc(out, CompareQ5)
	return out
}

// CompareQ5 orders Q5 rows by (WindowStart, Auction).
func CompareQ5(a, b Q5Row) int {
	return cmp.Or(cmp.Compare(a.WindowStart, b.WindowStart), cmp.Compare(a.Auction, b.Auction))
}
