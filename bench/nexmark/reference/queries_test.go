package reference

import (
	"reflect"
	"slices"
	"testing"

	"github.com/weir-engine/weir/bench/nexmark"
)

// Each table below is a small hand-built stream with its answer worked out
// by hand; the comments say why each row is in or out.

func TestQ0(t *testing.T) {
	events := []nexmark.Event{
		person(1000, "p", "OR", T),
		auction(1000, 1000, 10, T+1, T+100, 0),
		bid(1000, 1000, 50, T+2),
		nexmark.BidEvent(nexmark.Bid{Auction: 1000, Bidder: 1001, Price: 70, DateTime: T + 3, Extra: "xyz"}), // its Extra's length counts
	}
	// Persons and auctions do not pass through.
	want := Q0Result{
		Bids:     2,
		Checksum: uint64((1000 + 1000 + 50 + T + 2) + (1000 + 1001 + 70 + T + 3 + 3)),
	}
	if got := Q0(slices.Values(events)); got != want {
		t.Fatalf("Q0 = %+v, want %+v", got, want)
	}
}

func TestQ1(t *testing.T) {
	events := []nexmark.Event{
		bid(2, 7, 999, T+5),     // 999*0.908 = 907.092
		person(1, "p", "OR", T), // not a bid
		bid(1, 7, 1000, T+5),    // same time as the first: ordered by auction
		bid(3, 8, 1, T),         // 0.908 truncates to 0
		bid(4, 9, 100_000_000, T+9),
	}
	want := []Q1Row{
		{Auction: 3, Bidder: 8, Price: 0, DateTime: T},
		{Auction: 1, Bidder: 7, Price: 908, DateTime: T + 5},
		{Auction: 2, Bidder: 7, Price: 907, DateTime: T + 5},
		{Auction: 4, Bidder: 9, Price: 90_800_000, DateTime: T + 9},
	}
	if got := Q1(slices.Values(events)); !reflect.DeepEqual(got, want) {
		t.Fatalf("Q1 = %+v, want %+v", got, want)
	}
}

func TestQ2(t *testing.T) {
	events := []nexmark.Event{
		bid(246, 1, 20, T), // 2*123
		bid(124, 1, 30, T), // not a multiple
		bid(123, 1, 50, T),
		bid(123, 2, 10, T+1),
		bid(123, 3, 10, T+2), // duplicates of (auction, price) are kept
		bid(0, 1, 5, T),      // 0 is a multiple of 123
		auction(123, 1, 10, T, T+1, 0),
	}
	want := []Q2Row{{0, 5}, {123, 10}, {123, 10}, {123, 50}, {246, 20}}
	if got := Q2(slices.Values(events)); !reflect.DeepEqual(got, want) {
		t.Fatalf("Q2 = %+v, want %+v", got, want)
	}
}

func TestQ3(t *testing.T) {
	events := []nexmark.Event{
		auction(5, 3, 10, T, T+9, 0), // before its seller (3, CA): still joins
		person(1, "Ann", "OR", T),
		person(2, "Bob", "WA", T), // WA is not kept
		auction(6, 1, 10, T+1, T+9, 0),
		auction(7, 1, 11, T+1, T+9, 0), // category 11 is not kept
		auction(8, 2, 10, T+1, T+9, 0),
		person(3, "Cat", "CA", T+2),
		auction(9, 4, 10, T+3, T+9, 0), // seller 4 never arrives
		auction(4, 3, 10, T+3, T+9, 0),
		person(10, "Dan", "ID", T+4), // no auctions
	}
	want := []Q3Row{
		{"Cat", "City of Cat", "CA", 4},
		{"Cat", "City of Cat", "CA", 5},
		{"Ann", "City of Ann", "OR", 6},
	}
	if got := Q3(slices.Values(events)); !reflect.DeepEqual(got, want) {
		t.Fatalf("Q3 = %+v, want %+v", got, want)
	}
}

func TestQ4AndWinningBids(t *testing.T) {
	events := []nexmark.Event{
		// Auction 1, category 10, open [T, T+100), reserve 500.
		auction(1, 90, 10, T, T+100, 500),
		bid(1, 7, 400, T+1),   // under the reserve
		bid(1, 7, 600, T+10),  // valid
		bid(1, 8, 700, T+100), // at Expires: closed
		bid(1, 9, 600, T+5),   // same price as the T+10 bid but earlier: wins
		bid(1, 6, 600, T+10),  // same price and time as bidder 7: lower bidder ID, but later than T+5
		// Auction 2, category 10, open [T+60, T+200), reserve 100. Its bids
		// come first in the stream.
		bid(2, 7, 9999, T+50), // before the auction opened
		bid(2, 8, 300, T+60),  // at the opening millisecond: valid
		auction(2, 91, 10, T+60, T+200, 100),
		bid(2, 9, 250, T+61),
		// Auction 3, category 11: no valid bid, so no winner.
		auction(3, 92, 11, T, T+10, 1000),
		bid(3, 7, 999, T+1),
		// Auction 4, category 11: ties on price and time, lower bidder wins.
		auction(4, 93, 11, T, T+10, 0),
		bid(4, 9, 1000, T+2),
		bid(4, 8, 1000, T+2),
		// A bid on an auction that never appears.
		bid(99, 7, 5000, T+3),
	}
	wantWinners := []Winner{
		{Auction: 1, Seller: 90, Category: 10, Bidder: 9, Price: 600, DateTime: T + 5},
		{Auction: 2, Seller: 91, Category: 10, Bidder: 8, Price: 300, DateTime: T + 60},
		{Auction: 4, Seller: 93, Category: 11, Bidder: 8, Price: 1000, DateTime: T + 2},
	}
	if got := WinningBids(slices.Values(events)); !reflect.DeepEqual(got, wantWinners) {
		t.Fatalf("WinningBids = %+v, want %+v", got, wantWinners)
	}
	want := []Q4Row{
		{Category: 10, Auctions: 2, Sum: 900, Avg: 450},
		{Category: 11, Auctions: 1, Sum: 1000, Avg: 1000},
	}
	if got := Q4(slices.Values(events)); !reflect.DeepEqual(got, want) {
		t.Fatalf("Q4 = %+v, want %+v", got, want)
	}
}

func TestQ5(t *testing.T) {
	events := []nexmark.Event{
		bid(1, 0, 1, T),        // windows starting T-8s .. T
		bid(1, 0, 1, T+1000),   // the same five windows
		bid(2, 0, 1, T+2500),   // windows starting T-6s .. T+2s
		bid(2, 0, 1, T+3000),   // the same
		bid(3, 0, 1, T+11_000), // windows starting T+2s .. T+10s
		person(9, "p", "OR", T+4000),
	}
	want := []Q5Row{
		{T - 8000, 1, 2},
		{T - 6000, 1, 2}, {T - 6000, 2, 2}, // a tie: both reported
		{T - 4000, 1, 2}, {T - 4000, 2, 2},
		{T - 2000, 1, 2}, {T - 2000, 2, 2},
		{T, 1, 2}, {T, 2, 2},
		{T + 2000, 2, 2}, // [T+2s, T+12s) holds both bids on 2 and the one on 3
		{T + 4000, 3, 1},
		{T + 6000, 3, 1},
		{T + 8000, 3, 1},
		{T + 10_000, 3, 1},
	}
	if got := Q5(slices.Values(events)); !reflect.DeepEqual(got, want) {
		t.Fatalf("Q5 = %+v, want %+v", got, want)
	}
}

func TestQ7(t *testing.T) {
	events := []nexmark.Event{
		bid(1, 1, 5, T+1),
		bid(2, 2, 9, T+9999), // ties with the next one: both reported
		bid(3, 3, 9, T+2),
		bid(4, 4, 3, T+10_000), // the end of the first window starts the next
		bid(5, 5, 8, T-1),      // the window before
	}
	want := []Q7Row{
		{WindowStart: T - 10_000, Auction: 5, Bidder: 5, Price: 8, DateTime: T - 1},
		{WindowStart: T, Auction: 3, Bidder: 3, Price: 9, DateTime: T + 2},
		{WindowStart: T, Auction: 2, Bidder: 2, Price: 9, DateTime: T + 9999},
		{WindowStart: T + 10_000, Auction: 4, Bidder: 4, Price: 3, DateTime: T + 10_000},
	}
	if got := Q7(slices.Values(events)); !reflect.DeepEqual(got, want) {
		t.Fatalf("Q7 = %+v, want %+v", got, want)
	}
}

func TestQ8(t *testing.T) {
	events := []nexmark.Event{
		auction(1, 3, 10, T+20, T+99, 0), // before person 3, same window
		person(1, "Ann", "OR", T+100),
		person(2, "Bob", "OR", T+9999),
		person(3, "Cat", "OR", T+10),
		auction(2, 1, 10, T+5000, T+9999, 0),
		auction(3, 2, 10, T+10_000, T+20_000, 0), // Bob's auction is in the next window
		auction(4, 3, 10, T+30, T+99, 0),         // Cat's second auction: still one row
		auction(5, 4, 10, T+40, T+99, 0),         // seller 4 never registers
		person(5, "Eve", "OR", T+10_001),
		auction(6, 5, 10, T+19_999, T+30_000, 0),
	}
	want := []Q8Row{
		{PersonID: 1, Name: "Ann", WindowStart: T},
		{PersonID: 3, Name: "Cat", WindowStart: T},
		{PersonID: 5, Name: "Eve", WindowStart: T + 10_000},
	}
	if got := Q8(slices.Values(events)); !reflect.DeepEqual(got, want) {
		t.Fatalf("Q8 = %+v, want %+v", got, want)
	}
}

func TestWindowStart(t *testing.T) {
	for _, tc := range []struct{ ts, size, want int64 }{
		{T, 10_000, T},
		{T + 9999, 10_000, T},
		{T + 10_000, 10_000, T + 10_000},
		{T - 1, 10_000, T - 10_000},
		{-1, 10_000, -10_000},
		{0, 2000, 0},
	} {
		if got := WindowStart(tc.ts, tc.size); got != tc.want {
			t.Errorf("WindowStart(%d, %d) = %d, want %d", tc.ts, tc.size, got, tc.want)
		}
	}
	var starts []int64
	SlidingWindowStarts(T+2500, WindowSize, Q5Slide, func(s int64) { starts = append(starts, s) })
	if want := []int64{T - 6000, T - 4000, T - 2000, T, T + 2000}; !reflect.DeepEqual(starts, want) {
		t.Errorf("SlidingWindowStarts(T+2500) = %v, want %v", starts, want)
	}
}
