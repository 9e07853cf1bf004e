package reference

import (
	"cmp"
	"iter"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/weir-engine/weir/bench/nexmark"
)

// results runs every query over events.
func results(events []nexmark.Event) map[string]any {
	s := slices.Values(events)
	return map[string]any{
		"q0": Q0(s), "q1": Q1(s), "q2": Q2(s), "q3": Q3(s), "q4": Q4(s),
		"winners": WinningBids(s), "q5": Q5(s), "q7": Q7(s), "q8": Q8(s),
	}
}

// TestResultsIgnoreArrivalOrder is the property an engine relies on: every
// query's result is a function of the set of events, not of their order, so
// any parallelism or out-of-order delivery must give the same answer. An
// out-of-order generator permutes the same events, and a shuffle goes
// further.
func TestResultsIgnoreArrivalOrder(t *testing.T) {
	const n = 60_000
	inOrder := generated(n, 1)
	want := results(inOrder)
	for name, r := range want {
		if reflect.ValueOf(r).Kind() == reflect.Slice && reflect.ValueOf(r).Len() == 0 {
			t.Errorf("%s is empty over %d generated events: the test proves nothing", name, n)
		}
	}
	shuffled := slices.Clone(inOrder)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) {
		shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
	})
	for name, events := range map[string][]nexmark.Event{
		"out-of-order groups of 37": generated(n, 37),
		"shuffled":                  shuffled,
	} {
		got := results(events)
		for q := range want {
			if !reflect.DeepEqual(got[q], want[q]) {
				t.Errorf("%s: %s differs from the in-order result", name, q)
			}
		}
	}
}

// The naive versions below restate three queries as directly as possible,
// over the whole input at once, to check the streaming loops against.

func naiveQ3(events iter.Seq[nexmark.Event]) []Q3Row {
	var persons []nexmark.Person
	var auctions []nexmark.Auction
	for e := range events {
		if e.IsPerson() {
			persons = append(persons, e.Person())
		}
		if e.IsAuction() {
			auctions = append(auctions, e.Auction())
		}
	}
	var out []Q3Row
	for _, a := range auctions {
		for _, p := range persons {
			if a.Seller == p.ID && a.Category == Q3Category && Q3State(p.State) {
				out = append(out, Q3Row{p.Name, p.City, p.State, a.ID})
			}
		}
	}
	slices.SortFunc(out, CompareQ3)
	return out
}

func naiveWinningBids(events iter.Seq[nexmark.Event]) []Winner {
	var auctions []*nexmark.Auction
	bids := map[int64][]*nexmark.Bid{}
	for e := range events {
		if e.IsAuction() {
			auctions = append(auctions, new(e.Auction()))
		}
		if e.IsBid() {
			bids[e.Bid().Auction] = append(bids[e.Bid().Auction], new(e.Bid()))
		}
	}
	var out []Winner
	for _, a := range auctions {
		valid := slices.DeleteFunc(slices.Clone(bids[a.ID]), func(b *nexmark.Bid) bool { return !ValidBid(a, b) })
		if len(valid) == 0 {
			continue
		}
		// Highest price, then earliest, then lowest bidder.
		w := slices.MinFunc(valid, func(x, y *nexmark.Bid) int {
			return cmp.Or(cmp.Compare(y.Price, x.Price), cmp.Compare(x.DateTime, y.DateTime), cmp.Compare(x.Bidder, y.Bidder))
		})
		out = append(out, Winner{a.ID, a.Seller, a.Category, w.Bidder, w.Price, w.DateTime})
	}
	slices.SortFunc(out, func(a, b Winner) int { return cmp.Compare(a.Auction, b.Auction) })
	return out
}

func naiveQ5(events iter.Seq[nexmark.Event]) []Q5Row {
	counts := map[int64]map[int64]int64{} // window -> auction -> bids
	for e := range events {
		if !e.IsBid() {
			continue
		}
		b := e.Bid()
		// Every slide-aligned start s with s <= t < s+size, found by scanning.
		for s := WindowStart(b.DateTime, Q5Slide) - WindowSize; s <= b.DateTime; s += Q5Slide {
			if s <= b.DateTime && b.DateTime < s+WindowSize {
				if counts[s] == nil {
					counts[s] = map[int64]int64{}
				}
				counts[s][b.Auction]++
			}
		}
	}
	var out []Q5Row
	for w, c := range counts {
		top := int64(0)
		for _, n := range c {
			top = max(top, n)
		}
		for a, n := range c {
			if n == top {
				out = append(out, Q5Row{w, a, n})
			}
		}
	}
	slices.SortFunc(out, CompareQ5)
	return out
}

func TestStreamingMatchesNaive(t *testing.T) {
	// A slower rate stretches 40k events over 40 s, so many q5 windows.
	c := nexmark.DefaultConfig()
	c.NumEvents = 40_000
	c.FirstEventRate = 1000
	events := slices.Collect(nexmark.NewGenerator(c).All())
	s := slices.Values(events)
	if got, want := Q3(s), naiveQ3(s); !reflect.DeepEqual(got, want) {
		t.Errorf("Q3: %d rows, naive %d", len(got), len(want))
	}
	if got, want := WinningBids(s), naiveWinningBids(s); !reflect.DeepEqual(got, want) {
		t.Errorf("WinningBids: %d rows, naive %d", len(got), len(want))
	}
	if got, want := Q5(s), naiveQ5(s); !reflect.DeepEqual(got, want) {
		t.Errorf("Q5: %d rows, naive %d", len(got), len(want))
	}
}
