package nexmark

import (
	"encoding/json"
	"strings"
	"testing"
	"unsafe"
)

// TestEventIsCompact holds the flat union to its size: the source chain
// copies every event once per operator, so the layout matters.
func TestEventIsCompact(t *testing.T) {
	if got := unsafe.Sizeof(Event{}); got > 160 {
		t.Fatalf("Event is %d bytes, want at most 160", got)
	}
}

// TestEventEntitiesRoundTrip builds each kind from its entity and reads it
// back, and checks the other kinds read as zero.
func TestEventEntitiesRoundTrip(t *testing.T) {
	p := Person{ID: 1, Name: "n", EmailAddress: "e", CreditCard: "c", City: "ci", State: "s", DateTime: 2, Extra: "x"}
	a := Auction{ID: 3, ItemName: "i", Description: "d", InitialBid: 4, Reserve: 5, DateTime: 6, Expires: 7, Seller: 8, Category: 9, Extra: "y"}
	b := Bid{Auction: 10, Bidder: 11, Price: 12, Channel: "ch", URL: "u", DateTime: 13, Extra: "z"}
	for _, tc := range []struct {
		e    Event
		kind EventKind
		ts   int64
	}{{PersonEvent(p), KindPerson, 2}, {AuctionEvent(a), KindAuction, 6}, {BidEvent(b), KindBid, 13}} {
		e := tc.e
		if e.Kind != tc.kind || e.Timestamp() != tc.ts {
			t.Fatalf("%s: kind %s, timestamp %d; want %s, %d", tc.kind, e.Kind, e.Timestamp(), tc.kind, tc.ts)
		}
		wantP, wantA, wantB := Person{}, Auction{}, Bid{}
		switch tc.kind {
		case KindPerson:
			wantP = p
		case KindAuction:
			wantA = a
		default:
			wantB = b
		}
		if e.Person() != wantP || e.Auction() != wantA || e.Bid() != wantB {
			t.Fatalf("%s: got %+v / %+v / %+v", tc.kind, e.Person(), e.Auction(), e.Bid())
		}
	}
}

// TestEventEncodingsRoundTrip encodes generated events of every kind as JSON
// (the Kafka records' shape: the kind and its one entity) and in binary,
// and decodes them back equal.
func TestEventEncodingsRoundTrip(t *testing.T) {
	c := DefaultConfig()
	seen := map[EventKind]bool{}
	for n := range int64(200) {
		e := c.EventAt(n)
		seen[e.Kind] = true
		js, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"Kind":` + string('0'+rune(e.Kind)) + `,"` + strings.ToUpper(e.Kind.String()[:1]) + e.Kind.String()[1:] + `":{`; !strings.HasPrefix(string(js), want) {
			t.Fatalf("event %d: JSON %.80s, want it to start %s", n, js, want)
		}
		var fromJSON Event
		if err := json.Unmarshal(js, &fromJSON); err != nil || fromJSON != e {
			t.Fatalf("event %d: JSON round trip: %v, %+v != %+v", n, err, fromJSON, e)
		}
		bin, err := e.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var fromBin Event
		if err := fromBin.UnmarshalBinary(bin); err != nil || fromBin != e {
			t.Fatalf("event %d: binary round trip: %v, %+v != %+v", n, err, fromBin, e)
		}
		for cut := range len(bin) {
			if err := new(Event).UnmarshalBinary(bin[:cut]); err == nil {
				t.Fatalf("event %d: %d of %d bytes decoded without an error", n, cut, len(bin))
			}
		}
	}
	if len(seen) != 3 {
		t.Fatalf("kinds seen: %v, want all three", seen)
	}
}

// TestEventJSONRejectsMismatchedKinds: exactly the entity Kind names must be
// set.
func TestEventJSONRejectsMismatchedKinds(t *testing.T) {
	for _, in := range []string{
		`{"Kind":2}`,
		`{"Kind":2,"Person":{"ID":1}}`,
		`{"Kind":0,"Person":{"ID":1},"Bid":{"Auction":1}}`,
		`{"Kind":7,"Bid":{"Auction":1}}`,
		`[1]`,
	} {
		var e Event
		if err := json.Unmarshal([]byte(in), &e); err == nil {
			t.Errorf("%s decoded as %+v, want an error", in, e)
		}
	}
}
