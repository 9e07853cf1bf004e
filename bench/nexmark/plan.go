package nexmark

// plan is what generating an event needs that depends on the Config alone,
// worked out once: the cycle shape, the seed's half of every event's random
// stream, and the shared text (text.go). A Generator holds one, so its
// per-event work is the event's own arithmetic and random draws; EventAt
// makes one per call. A plan is never written after newPlan, so goroutines
// may share it.
type plan struct {
	c Config
	cycles

	seed    uint64 // mix64(c.Seed+golden), where c.Seed's random stream starts (rngAt)
	delayUs int64  // event-time gap between consecutive event numbers
	// auctionAhead is how many event numbers it takes for InFlightAuctions
	// more auctions to be created (see auctionLength).
	auctionAhead int64
	// bidExtraLo and bidExtraSpan are the range of a bid's Extra length,
	// [lo, lo+span), as extraSize works it out from AvgBidByteSize.
	bidExtraLo, bidExtraSpan int64

	channels *channels
	extra    string
	words    string
	emails   []string
	cards    string
}

// newPlan returns c's plan, building the shared text on first use.
func (c Config) newPlan() plan {
	y := c.cycles()
	bidExtraLo, bidExtraSpan := extraRange(bidSize, c.AvgBidByteSize)
	return plan{
		c:            c,
		cycles:       y,
		seed:         mix64(c.Seed + golden),
		delayUs:      c.interEventDelayUs(),
		auctionAhead: int64(c.InFlightAuctions) * y.length / y.auctions,
		bidExtraLo:   bidExtraLo,
		bidExtraSpan: bidExtraSpan,
		channels:     channelTable(),
		extra:        extraPool(),
		words:        wordPool(),
		emails:       emailPool(),
		cards:        cardPool(),
	}
}

// timestamp is Config.timestampOf.
func (p *plan) timestamp(m int64) int64 {
	return p.c.BaseTime + m*p.delayUs/1000
}

// fill writes the events at positions first, first+stride, ... into dst,
// one per element. In an in-order stream it steps the slot along instead of
// dividing for each event.
func (p *plan) fill(dst []Event, first, stride int64) {
	if p.c.OutOfOrderGroupSize != 1 {
		for i := range dst {
			p.event(&dst[i], p.slotOf(p.c.adjusted(first+int64(i)*stride)))
		}
		return
	}
	s := p.slotOf(first)
	step := p.slotOf(stride)
	for i := range dst {
		p.event(&dst[i], s)
		s.m += stride
		s.epoch += step.epoch
		if s.offset += step.offset; s.offset >= p.length {
			s.offset -= p.length
			s.epoch++
		}
	}
}

// event writes the event of slot s into e, overwriting all of it.
func (p *plan) event(e *Event, s slot) {
	r := rngAt(p.seed, s.m)
	p.draw(e, s, &r)
}

// draw is event drawing from r, which must be the event's window of the
// stream.
func (p *plan) draw(e *Event, s slot, r *rng) {
	ts := p.timestamp(s.m)
	switch p.kind(s) {
	case KindPerson:
		p.person(e, s, ts, r)
	case KindAuction:
		p.auction(e, s, ts, r)
	default:
		p.bid(e, s, ts, r)
	}
}
