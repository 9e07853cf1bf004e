package nexmark

// EventAt returns the event at position n of the stream c describes. It is a
// pure function of c and n: any subset of positions, asked for in any order,
// from any number of goroutines or processes, gives the same events a single
// sequential Generator does. c must be valid (see Validate) and n must be in
// [0, NumEvents) when NumEvents is set; EventAt does not check either.
// It allocates nothing.
func (c Config) EventAt(n int64) Event {
	m := c.adjusted(n)
	ts := c.timestampOf(m)
	r := newRNG(c.Seed, m)
	switch c.kindOf(m) {
	case KindPerson:
		return Event{Kind: KindPerson, Person: c.newPerson(m, ts, &r)}
	case KindAuction:
		return Event{Kind: KindAuction, Auction: c.newAuction(m, ts, &r)}
	default:
		return Event{Kind: KindBid, Bid: c.newBid(m, ts, &r)}
	}
}
