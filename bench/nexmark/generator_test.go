package nexmark

import (
	"reflect"
	"testing"
)

// testConfig is DefaultConfig bounded to n events.
func testConfig(n int64) Config {
	c := DefaultConfig()
	c.NumEvents = n
	return c
}

func collect(g *Generator) []Event {
	var out []Event
	for e := range g.All() {
		out = append(out, e)
	}
	return out
}

func TestSameSeedSameEvents(t *testing.T) {
	c := testConfig(5000)
	a, b := collect(NewGenerator(c)), collect(NewGenerator(c))
	if len(a) != 5000 {
		t.Fatalf("got %d events, want 5000", len(a))
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two generators with one config disagree")
	}
	c.Seed = 42
	if reflect.DeepEqual(a, collect(NewGenerator(c))) {
		t.Fatal("a different seed gave the same events")
	}
}

func TestEventAtEqualsNext(t *testing.T) {
	for _, ooo := range []int64{1, 7, 64} {
		c := testConfig(2003) // not a multiple of 7 or 64: a partial last group
		c.OutOfOrderGroupSize = ooo
		seq := collect(NewGenerator(c))
		// Ask EventAt backwards, so no hidden state could carry over.
		for n := int64(len(seq)) - 1; n >= 0; n-- {
			if got := c.EventAt(n); !reflect.DeepEqual(got, seq[n]) {
				t.Fatalf("ooo=%d: EventAt(%d) = %+v, Next gave %+v", ooo, n, got, seq[n])
			}
		}
	}
}

func TestProportions(t *testing.T) {
	for _, tc := range []struct {
		p, a, b int
		n       int64
	}{
		{1, 3, 46, 50_000},
		{2, 5, 13, 20_000},
	} {
		c := testConfig(tc.n)
		c.PersonProportion, c.AuctionProportion, c.BidProportion = tc.p, tc.a, tc.b
		var count [3]int64
		for e := range NewGenerator(c).All() {
			count[e.Kind]++
		}
		cycles := tc.n / int64(tc.p+tc.a+tc.b)
		want := [3]int64{cycles * int64(tc.p), cycles * int64(tc.a), cycles * int64(tc.b)}
		if count != want {
			t.Errorf("%d:%d:%d over %d events: got %v, want %v", tc.p, tc.a, tc.b, tc.n, count, want)
		}
	}
}

// TestReferencesWithinLead checks the ID relationships. Persons and auctions
// get dense increasing IDs. A seller, bidder or bid's auction names an entity
// generated earlier, except that the reference deliberately lets a random
// pick run up to PersonIDLead / AuctionIDLead IDs ahead (and the hot bidder
// one ahead while a batch of 100 people has only its first member); the test
// bounds both the distance and how often it happens.
func TestReferencesWithinLead(t *testing.T) {
	c := testConfig(200_000)
	nextPerson, nextAuction := c.FirstPersonID, c.FirstAuctionID
	type tally struct{ refs, future float64 }
	var sellers, bidders, bidAuctions tally
	ref := func(n int64, what string, tl *tally, id, first, next, lead int64) {
		t.Helper()
		tl.refs++
		if id >= next {
			tl.future++
		}
		if id < first || id >= next+lead {
			t.Fatalf("event %d: %s %d outside [%d, %d)", n, what, id, first, next+lead)
		}
	}
	g := NewGenerator(c)
	for n := int64(0); ; n++ {
		e, ok := g.Next()
		if !ok {
			break
		}
		switch e.Kind {
		case KindPerson:
			if e.Person().ID != nextPerson {
				t.Fatalf("event %d: person ID %d, want %d", n, e.Person().ID, nextPerson)
			}
			nextPerson++
		case KindAuction:
			a := e.Auction()
			if a.ID != nextAuction {
				t.Fatalf("event %d: auction ID %d, want %d", n, a.ID, nextAuction)
			}
			nextAuction++
			ref(n, "seller", &sellers, a.Seller, c.FirstPersonID, nextPerson, PersonIDLead)
			if a.Category < c.FirstCategoryID || a.Category >= c.FirstCategoryID+int64(c.NumCategories) {
				t.Fatalf("event %d: category %d", n, a.Category)
			}
			if a.Expires <= a.DateTime || a.Reserve < a.InitialBid || a.InitialBid < 100 {
				t.Fatalf("event %d: bad auction %+v", n, a)
			}
		case KindBid:
			b := e.Bid()
			ref(n, "bidder", &bidders, b.Bidder, c.FirstPersonID, nextPerson, PersonIDLead)
			ref(n, "bid auction", &bidAuctions, b.Auction, c.FirstAuctionID, nextAuction, AuctionIDLead)
			if b.Price < 100 || b.Price > 100_000_000 {
				t.Fatalf("event %d: price %d", n, b.Price)
			}
		}
	}
	// Expected shares of future IDs under the defaults: a random pick lands
	// in the lead with probability 10/(active+10), active being at most 1000
	// people (fewer early in the stream) or 100+1 auctions; the hot bidder is
	// ahead at 1 batch position in 100. The ceilings leave room for both.
	for _, r := range []struct {
		name string
		tl   tally
		max  float64
	}{
		{"seller", sellers, 0.01},          // about 0.25 * 10/1010, more while few people exist
		{"bidder", bidders, 0.02},          // about 0.75 * 1/100 + 0.25 * 10/1010
		{"bid auction", bidAuctions, 0.06}, // about 0.5 * 10/111
	} {
		frac := r.tl.future / r.tl.refs
		t.Logf("%s: %.3f%% of %.0f references name a not-yet-generated ID", r.name, 100*frac, r.tl.refs)
		if frac > r.max {
			t.Errorf("%s: %.3f%% future references, want at most %.3f%%", r.name, 100*frac, 100*r.max)
		}
	}
}

func TestTimestamps(t *testing.T) {
	c := testConfig(20_000)
	prev := int64(-1)
	for e := range NewGenerator(c).All() {
		ts := e.Timestamp()
		if ts < prev {
			t.Fatalf("timestamp went back from %d to %d", prev, ts)
		}
		prev = ts
	}
	// 20_000 events at 10_000 events/s span two seconds of event time.
	if want := c.BaseTime + (c.NumEvents-1)*100/1000; prev != want {
		t.Fatalf("last timestamp %d, want %d", prev, want)
	}
}

// TestOutOfOrderGroups checks that shuffling keeps every person ID exactly
// once and never puts an event before the watermark of its position.
func TestOutOfOrderGroups(t *testing.T) {
	c := testConfig(50_003)
	c.OutOfOrderGroupSize = 100
	seen := map[int64]bool{}
	disorder := 0
	prev := int64(-1)
	g := NewGenerator(c)
	for {
		n, wm := g.NextPosition(), g.Watermark()
		e, ok := g.Next()
		if !ok {
			break
		}
		ts := e.Timestamp()
		if ts < wm {
			t.Fatalf("position %d: timestamp %d before watermark %d", n, ts, wm)
		}
		if ts < prev {
			disorder++
		}
		prev = ts
		if e.Kind == KindPerson {
			if seen[e.Person().ID] {
				t.Fatalf("person %d twice", e.Person().ID)
			}
			seen[e.Person().ID] = true
		}
	}
	if len(seen) != 1001 { // 50_003 events: 1000 full cycles plus one person
		t.Fatalf("%d distinct persons, want 1001", len(seen))
	}
	if disorder == 0 {
		t.Fatal("group size 100 left the stream in order")
	}
}

func TestSplitCoversEveryEventOnce(t *testing.T) {
	c := testConfig(10_007)
	c.OutOfOrderGroupSize = 13
	count := make([]int, c.NumEvents)
	take := func(g *Generator, limit int) {
		for range limit {
			n := g.NextPosition()
			e, ok := g.Next()
			if !ok {
				return
			}
			count[n]++
			if !reflect.DeepEqual(e, c.EventAt(n)) {
				t.Fatalf("position %d: split generator disagrees with EventAt", n)
			}
		}
	}
	whole := NewGenerator(c)
	take(whole, 1) // split what remains after one event
	a, mid, b := whole.Split(0, 3), whole.Split(1, 3), whole.Split(2, 3)
	take(mid, 5) // consume a little, then split the rest again
	mid0, mid1 := mid.Split(0, 2), mid.Split(1, 2)
	for _, g := range []*Generator{a, b, mid0, mid1} {
		take(g, int(c.NumEvents))
	}
	for n, k := range count {
		if k != 1 {
			t.Fatalf("position %d returned %d times", n, k)
		}
	}
}

func TestSetPositionResumes(t *testing.T) {
	c := testConfig(1000)
	g := NewGenerator(c).Split(1, 4)
	want := collect(g)
	r := NewGenerator(c).Split(1, 4)
	r.SetPosition(100)
	if got := collect(r); !reflect.DeepEqual(got, want[100:]) {
		t.Fatalf("resumed generator returned %d events, want %d", len(got), len(want)-100)
	}
}

// TestAverageSizes checks the Extra padding: each kind's size as the
// reference counts it lands within 3% of the configured average.
func TestAverageSizes(t *testing.T) {
	c := testConfig(100_000)
	var sum, num [3]float64
	for e := range NewGenerator(c).All() {
		var size int
		switch e.Kind {
		case KindPerson:
			p := e.Person()
			size = 8 + len(p.Name) + len(p.EmailAddress) + len(p.CreditCard) + len(p.City) + len(p.State) + len(p.Extra)
		case KindAuction:
			a := e.Auction()
			size = 8 + len(a.ItemName) + len(a.Description) + 40 + len(a.Extra)
		case KindBid:
			size = 32 + len(e.Bid().Extra)
		}
		sum[e.Kind] += float64(size)
		num[e.Kind]++
	}
	for k, want := range []int{c.AvgPersonByteSize, c.AvgAuctionByteSize, c.AvgBidByteSize} {
		got := sum[k] / num[k]
		if got < 0.97*float64(want) || got > 1.03*float64(want) {
			t.Errorf("%v: average size %.1f, want about %d", EventKind(k), got, want)
		}
	}
}

// TestHotItems checks the hot ratios: half the bids go to the hot auction,
// three quarters come from the hot bidder, three quarters of auctions have
// the hot seller.
func TestHotItems(t *testing.T) {
	c := testConfig(200_000)
	var bids, hotAuction, hotBidder, auctions, hotSeller float64
	for n := range c.NumEvents {
		e := c.EventAt(n)
		switch e.Kind {
		case KindAuction:
			auctions++
			if e.Auction().Seller == c.hotSeller(n)+c.FirstPersonID {
				hotSeller++
			}
		case KindBid:
			bids++
			if e.Bid().Auction == c.hotAuction(n)+c.FirstAuctionID {
				hotAuction++
			}
			if e.Bid().Bidder == c.hotBidder(n)+c.FirstPersonID {
				hotBidder++
			}
		}
	}
	// A random pick can land on the hot item too, hence the upper slack.
	for _, r := range []struct {
		name      string
		got, want float64
	}{
		{"hot auction", hotAuction / bids, 0.5},
		{"hot bidder", hotBidder / bids, 0.75},
		{"hot seller", hotSeller / auctions, 0.75},
	} {
		if r.got < r.want-0.01 || r.got > r.want+0.02 {
			t.Errorf("%s share %.3f, want about %.2f", r.name, r.got, r.want)
		}
	}
}

func TestEventTimestampAndKind(t *testing.T) {
	if new(Event).Timestamp() != 0 {
		t.Fatal("zero Event has a timestamp")
	}
	for k, s := range map[EventKind]string{KindPerson: "person", KindAuction: "auction", KindBid: "bid", 9: "unknown"} {
		if k.String() != s {
			t.Errorf("%d.String() = %q, want %q", k, k.String(), s)
		}
	}
}

// TestEventsStayInTheirWindow checks that no event takes more than its
// eventSteps steps of the random stream, so the windows of consecutive
// events never overlap and every event's draws are independent of the
// others'. It counts the steps every event of a stream takes, also with
// the hot ratios at 1, so that every seller, auction and bidder is a random
// pick.
func TestEventsStayInTheirWindow(t *testing.T) {
	for _, ratios := range []int{1, 4} {
		c := testConfig(5000)
		c.HotAuctionRatio, c.HotBiddersRatio, c.HotSellersRatio = ratios, ratios, ratios
		p := c.newPlan()
		most := map[EventKind]uint64{}
		for m := range c.NumEvents {
			r := rngAt(p.seed, m)
			start := r.state
			var e Event
			p.draw(&e, p.slotOf(m), &r)
			steps := uint64(0)
			for x := start; x != r.state && steps <= eventSteps; x += golden {
				steps++
			}
			if steps > eventSteps {
				t.Fatalf("ratios %d: event %d (%s) took more than %d steps", ratios, m, e.Kind, eventSteps)
			}
			most[e.Kind] = max(most[e.Kind], steps)
		}
		t.Logf("ratios %d: most steps per kind %v", ratios, most)
		if want := map[EventKind]uint64{KindPerson: 6, KindAuction: 10, KindBid: 5}; !reflect.DeepEqual(most, want) {
			t.Errorf("most steps per kind %v, want %v (the counts eventSteps is chosen for)", most, want)
		}
	}
}

// TestFillEqualsEventAt checks the batch path: Fill and Config.EventsAt
// into a reused slab (holding old events of every kind) give the events
// EventAt gives, in order and out of order, for strides below and above
// one cycle of 50 events.
func TestFillEqualsEventAt(t *testing.T) {
	for _, ooo := range []int64{1, 7} {
		for _, stride := range []int{1, 3, 77} {
			c := testConfig(3001)
			c.OutOfOrderGroupSize = ooo
			var slab [37]Event // a size that leaves a partial last fill
			for i := range slab {
				slab[i] = c.EventAt(int64(i)) // stale events of every kind
			}
			first := int64(stride - 1)
			g := NewGenerator(c).Split(stride-1, stride)
			pos := first
			for {
				n := g.Fill(slab[:])
				if n == 0 {
					break
				}
				for i := range n {
					if want := c.EventAt(pos); slab[i] != want {
						t.Fatalf("ooo %d, stride %d: Fill gave %+v at position %d, EventAt %+v", ooo, stride, slab[i], pos, want)
					}
					pos += int64(stride)
				}
			}
			if pos < c.NumEvents || pos >= c.NumEvents+int64(stride) {
				t.Fatalf("ooo %d, stride %d: Fill stopped at position %d of %d", ooo, stride, pos, c.NumEvents)
			}
			c.EventsAt(slab[:], first, int64(stride))
			for i := range slab {
				if want := c.EventAt(first + int64(i*stride)); slab[i] != want {
					t.Fatalf("ooo %d, stride %d: EventsAt gave %+v at position %d, EventAt %+v", ooo, stride, slab[i], first+int64(i*stride), want)
				}
			}
		}
	}
}
