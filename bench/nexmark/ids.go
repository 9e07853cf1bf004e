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

// lastPerson returns the base-0 ID of the latest person at or before event m
// (m's own ID if m is a person).
func (c Config) lastPerson(m int64) int64 {
	y := c.cycles()
	return y.lastPerson(y.slotOf(m))
}

// lastAuction returns the base-0 ID of the latest auction at or before event
// m (m's own ID if m is an auction), or -1 before the first auction.
func (c Config) lastAuction(m int64) int64 {
	y := c.cycles()
	return y.lastAuction(y.slotOf(m))
}

// hotSeller is the first person of the current batch of hotBatch people.
func (c Config) hotSeller(m int64) int64 { return hotSeller(c.lastPerson(m)) }

// hotBidder is the second person of the current batch (see hotBidder).
func (c Config) hotBidder(m int64) int64 { return hotBidder(c.lastPerson(m)) }

// hotAuction is the first auction of the current batch of hotBatch auctions.
func (c Config) hotAuction(m int64) int64 { return hotAuction(c.lastAuction(m)) }

// cycles is the shape of the person, auction, bid cycle that every ID is
// derived from.
type cycles struct{ length, persons, auctions int64 }

// cycles returns c's cycle shape.
func (c Config) cycles() cycles {
	return cycles{length: c.proportionDenominator(), persons: int64(c.PersonProportion), auctions: int64(c.AuctionProportion)}
}

// slot is where an adjusted event number m sits in the cycles: m =
// epoch*length + offset with 0 <= offset < length. Every ID the event
// carries or draws is a function of it, so one division serves them all,
// and a Generator walking in order needs none (see cursor).
type slot struct{ m, epoch, offset int64 }

// slotOf returns m's slot.
func (y cycles) slotOf(m int64) slot {
	epoch := m / y.length
	return slot{m: m, epoch: epoch, offset: m - epoch*y.length}
}

// kind returns the kind of the event in slot s: each cycle starts with its
// persons, then its auctions, then its bids.
func (y cycles) kind(s slot) EventKind {
	switch {
	case s.offset < y.persons:
		return KindPerson
	case s.offset < y.persons+y.auctions:
		return KindAuction
	}
	return KindBid
}

// lastPerson returns the base-0 ID of the latest person at or before slot
// s. It is never negative: every cycle starts with its persons.
func (y cycles) lastPerson(s slot) int64 {
	return s.epoch*y.persons + min(s.offset, y.persons-1)
}

// lastAuction returns the base-0 ID of the latest auction at or before slot
// s, or -1 before the first auction.
func (y cycles) lastAuction(s slot) int64 {
	epoch, offset := s.epoch, s.offset-y.persons
	switch {
	case offset < 0: // a person: the last auction is in the previous cycle
		epoch--
		offset = y.auctions - 1
	case offset >= y.auctions: // a bid: the last auction of this cycle
		offset = y.auctions - 1
	}
	return epoch*y.auctions + offset
}

// randomPerson draws a base-0 person ID from the NumActivePeople most recent
// people (lastPerson being the latest) plus PersonIDLead IDs not generated
// yet. Bounding the draw to the active set keeps the density of activity per
// person steady however long the stream runs.
// x is the 32 random bits it draws with.
func (p *plan) randomPerson(lastPerson int64, x uint32) int64 {
	numPeople := lastPerson + 1
	active := min(numPeople, int64(p.c.NumActivePeople))
	return numPeople - active + lemire32(x, active+PersonIDLead)
}

// randomAuction draws a base-0 auction ID from the InFlightAuctions most
// recent auctions (lastAuction being the latest, the ones likely still
// open) plus AuctionIDLead IDs not generated yet.
// x is the 32 random bits it draws with.
func (p *plan) randomAuction(lastAuction int64, x uint32) int64 {
	lo := max(lastAuction-int64(p.c.InFlightAuctions), 0)
	return lo + lemire32(x, lastAuction-lo+1+AuctionIDLead)
}

// hotSeller is the first person of the batch of hotBatch people that
// lastPerson belongs to.
func hotSeller(lastPerson int64) int64 { return lastPerson / hotBatch * hotBatch }

// hotBidder is the second person of lastPerson's batch, so the hot seller
// and the hot bidder differ. When the batch has just started it is the next
// person, one ID ahead: within PersonIDLead, as in the reference.
func hotBidder(lastPerson int64) int64 { return lastPerson/hotBatch*hotBatch + 1 }

// hotAuction is the first auction of the batch of hotBatch auctions that
// lastAuction belongs to. Bids follow their cycle's auctions, so lastAuction
// is never -1 for them; the max only guards the arithmetic.
func hotAuction(lastAuction int64) int64 { return max(lastAuction, 0) / hotBatch * hotBatch }
