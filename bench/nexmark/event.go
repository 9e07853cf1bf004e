package nexmark

// Event is one element of the Nexmark stream: a flat tagged union of a
// Person, an Auction or a Bid, named by Kind. Read the entity with Person,
// Auction or Bid (the one Kind names; the others are zero) and build an
// event with PersonEvent, AuctionEvent or BidEvent.
//
// The three entities share one set of slots (the numbers in num, the strings
// in str), so an event is 160 bytes instead of the 304 of a struct holding
// all three, and every operator of the source chain copies half as much per
// event. DateTime is always num[1] and Extra always str[5], so Timestamp
// needs no switch. The strings of a generated event are slices of shared,
// immutable text (text.go), so an event holds no pointer of its own and
// generating one allocates nothing.
//
// JSON and binary encodings keep the shape of the entities (see codec.go).
type Event struct {
	Kind EventKind
	num  [7]int64
	str  [6]string
}

// Slots of the union: which num and str entries hold which field.
const (
	numID       = 0 // Person.ID, Auction.ID, Bid.Auction
	numDateTime = 1 // every kind's DateTime
	numA        = 2 // Auction.InitialBid, Bid.Bidder
	numB        = 3 // Auction.Reserve, Bid.Price
	numExpires  = 4 // Auction.Expires
	numSeller   = 5 // Auction.Seller
	numCategory = 6 // Auction.Category

	strA     = 0 // Person.Name, Auction.ItemName, Bid.Channel
	strB     = 1 // Person.EmailAddress, Auction.Description, Bid.URL
	strCard  = 2 // Person.CreditCard
	strCity  = 3 // Person.City
	strState = 4 // Person.State
	strExtra = 5 // every kind's Extra
)

// PersonEvent returns the event carrying p.
func PersonEvent(p Person) Event {
	return Event{
		Kind: KindPerson,
		num:  [7]int64{numID: p.ID, numDateTime: p.DateTime},
		str:  [6]string{strA: p.Name, strB: p.EmailAddress, strCard: p.CreditCard, strCity: p.City, strState: p.State, strExtra: p.Extra},
	}
}

// AuctionEvent returns the event carrying a.
func AuctionEvent(a Auction) Event {
	return Event{
		Kind: KindAuction,
		num:  [7]int64{numID: a.ID, numDateTime: a.DateTime, numA: a.InitialBid, numB: a.Reserve, numExpires: a.Expires, numSeller: a.Seller, numCategory: a.Category},
		str:  [6]string{strA: a.ItemName, strB: a.Description, strExtra: a.Extra},
	}
}

// BidEvent returns the event carrying b.
func BidEvent(b Bid) Event {
	return Event{
		Kind: KindBid,
		num:  [7]int64{numID: b.Auction, numDateTime: b.DateTime, numA: b.Bidder, numB: b.Price},
		str:  [6]string{strA: b.Channel, strB: b.URL, strExtra: b.Extra},
	}
}

// Person returns the event's Person, or the zero Person if it carries
// another kind.
func (e *Event) Person() Person {
	if e.Kind != KindPerson {
		return Person{}
	}
	return Person{
		ID: e.num[numID], Name: e.str[strA], EmailAddress: e.str[strB], CreditCard: e.str[strCard],
		City: e.str[strCity], State: e.str[strState], DateTime: e.num[numDateTime], Extra: e.str[strExtra],
	}
}

// Auction returns the event's Auction, or the zero Auction if it carries
// another kind.
func (e *Event) Auction() Auction {
	if e.Kind != KindAuction {
		return Auction{}
	}
	return Auction{
		ID: e.num[numID], ItemName: e.str[strA], Description: e.str[strB], InitialBid: e.num[numA],
		Reserve: e.num[numB], DateTime: e.num[numDateTime], Expires: e.num[numExpires],
		Seller: e.num[numSeller], Category: e.num[numCategory], Extra: e.str[strExtra],
	}
}

// Bid returns the event's Bid, or the zero Bid if it carries another kind.
func (e *Event) Bid() Bid {
	if e.Kind != KindBid {
		return Bid{}
	}
	return Bid{
		Auction: e.num[numID], Bidder: e.num[numA], Price: e.num[numB], Channel: e.str[strA],
		URL: e.str[strB], DateTime: e.num[numDateTime], Extra: e.str[strExtra],
	}
}

// BidNumbers returns the numbers of the event's Bid: what e.Bid() holds in
// Auction, Bidder, Price and DateTime, all 0 if e carries another kind. It
// is for the hot paths of the queries: the results stay in registers, where
// a Bid (seven fields) is built on the stack and copied.
func (e *Event) BidNumbers() (auction, bidder, price, dateTime int64) {
	if e.Kind != KindBid {
		return 0, 0, 0, 0
	}
	return e.num[numID], e.num[numA], e.num[numB], e.num[numDateTime]
}

// Extra returns the Extra field of the entity the event carries.
func (e *Event) Extra() string { return e.str[strExtra] }

// IsPerson reports whether the event carries a Person.
func (e *Event) IsPerson() bool { return e.Kind == KindPerson }

// IsAuction reports whether the event carries an Auction.
func (e *Event) IsAuction() bool { return e.Kind == KindAuction }

// IsBid reports whether the event carries a Bid.
func (e *Event) IsBid() bool { return e.Kind == KindBid }

// Timestamp returns the event time (ms since the Unix epoch) of the entity
// the event carries.
func (e *Event) Timestamp() int64 { return e.num[numDateTime] }

// EventAt returns the event at position n of the stream c describes. It is a
// pure function of c and n: any subset of positions, asked for in any order,
// from any number of goroutines or processes, gives the same events a single
// sequential Generator does. c must be valid (see Validate) and n must be in
// [0, NumEvents) when NumEvents is set; EventAt does not check either.
// It allocates nothing. A Generator makes the same events at a fraction of
// the cost: it works out what depends on c alone once, not per event.
func (c Config) EventAt(n int64) Event {
	p := c.newPlan()
	var e Event
	p.event(&e, p.slotOf(c.adjusted(n)))
	return e
}

// EventsAt writes the events at positions first, first+stride,
// first+2*stride, ... into dst, one per element, overwriting what dst
// held: what a source reading every stride-th position fills a reused slab
// with. They are the events EventAt returns; EventsAt works out what
// depends on c alone once per call, not per event. c must be valid, stride
// positive, and every position below NumEvents when it is set.
func (c Config) EventsAt(dst []Event, first, stride int64) {
	p := c.newPlan()
	p.fill(dst, first, stride)
}
