package nexmark

// The ID arithmetic below follows the reference generator (Beam's
// PersonGenerator, AuctionGenerator and BidGenerator). IDs here are "base 0":
// add FirstPersonID or FirstAuctionID to get the IDs events carry. The event
// number used is always the adjusted one (see timing.go), so the content of
// an event never depends on where the out-of-order shuffle put it.

const (
	// PersonIDLead is how many not-yet-generated person IDs a random seller
	// or bidder may name, as in the reference (PERSON_ID_LEAD).
	PersonIDLead = 10
	// AuctionIDLead is how many not-yet-generated auction IDs a random bid
	// may name, as in the reference (AUCTION_ID_LEAD).
	AuctionIDLead = 10

	// hotBatch is the reference's HOT_*_RATIO constant: the hot auction is the
	// first of the current batch of 100 auctions, the hot seller the first
	// and the hot bidder the second of the current batch of 100 people.
	hotBatch = 100
)

// kindOf returns the kind of the event with adjusted number m.
func (c Config) kindOf(m int64) EventKind {
	rem := m % c.proportionDenominator()
	switch {
	case rem < int64(c.PersonProportion):
		return KindPerson
	case rem < int64(c.PersonProportion+c.AuctionProportion):
		return KindAuction
	}
	return KindBid
}

// lastPerson returns the base-0 ID of the latest person at or before event m
// (m's own ID if m is a person). It is never negative: every cycle starts
// with its persons.
func (c Config) lastPerson(m int64) int64 {
	p := int64(c.PersonProportion)
	epoch, offset := m/c.proportionDenominator(), m%c.proportionDenominator()
	if offset >= p {
		offset = p - 1
	}
	return epoch*p + offset
}

// lastAuction returns the base-0 ID of the latest auction at or before event
// m (m's own ID if m is an auction), or -1 before the first auction.
func (c Config) lastAuction(m int64) int64 {
	p, a := int64(c.PersonProportion), int64(c.AuctionProportion)
	epoch, offset := m/c.proportionDenominator(), m%c.proportionDenominator()
	switch {
	case offset < p: // a person: the last auction is in the previous cycle
		epoch--
		offset = a - 1
	case offset >= p+a: // a bid: the last auction of this cycle
		offset = a - 1
	default:
		offset -= p
	}
	return epoch*a + offset
}

// randomPerson draws a base-0 person ID from the NumActivePeople most recent
// people plus PersonIDLead IDs not generated yet. Bounding the draw to the
// active set keeps the density of activity per person steady however long
// the stream runs.
func (c Config) randomPerson(m int64, r *rng) int64 {
	numPeople := c.lastPerson(m) + 1
	active := min(numPeople, int64(c.NumActivePeople))
	return numPeople - active + r.intn(active+PersonIDLead)
}

// randomAuction draws a base-0 auction ID from the InFlightAuctions most
// recent auctions (the ones likely still open) plus AuctionIDLead IDs not
// generated yet.
func (c Config) randomAuction(m int64, r *rng) int64 {
	last := c.lastAuction(m)
	lo := max(last-int64(c.InFlightAuctions), 0)
	return lo + r.intn(last-lo+1+AuctionIDLead)
}

// hotSeller is the first person of the current batch of hotBatch people.
func (c Config) hotSeller(m int64) int64 {
	return c.lastPerson(m) / hotBatch * hotBatch
}

// hotBidder is the second person of the current batch, so the hot seller
// and the hot bidder differ. When the batch has just started it is the next
// person, one ID ahead: within PersonIDLead, as in the reference.
func (c Config) hotBidder(m int64) int64 {
	return c.lastPerson(m)/hotBatch*hotBatch + 1
}

// hotAuction is the first auction of the current batch of hotBatch auctions.
// Bids follow their cycle's auctions, so lastAuction is never -1 here; the
// max only guards the arithmetic.
func (c Config) hotAuction(m int64) int64 {
	return max(c.lastAuction(m), 0) / hotBatch * hotBatch
}
