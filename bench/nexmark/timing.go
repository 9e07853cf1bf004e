package nexmark

// Two numbers name an event. Its position n is where it sits in the stream
// (what EventAt and Generator count). Its adjusted number m decides its
// content: kind, IDs, random draws and timestamp. With OutOfOrderGroupSize 1
// they are equal; with a group size g the positions of each aligned group
// [k*g, k*g+g) carry the numbers of the same group in a shuffled order, so the
// stream is out of event-time order by less than one group.

// adjusted returns the adjusted number of position n, following the
// reference's nextAdjustedEventNumber: base + (n*953 mod g). If NumEvents cuts
// the last group short, that partial group keeps its order so every number
// in [0, NumEvents) still appears exactly once (the reference can emit numbers
// past the end there).
func (c Config) adjusted(n int64) int64 {
	g := c.OutOfOrderGroupSize
	if g == 1 {
		return n
	}
	base := n / g * g
	if c.NumEvents > 0 && base+g > c.NumEvents {
		return n
	}
	return base + (n-base)*outOfOrderMultiplier%g
}

// timestampOf returns the event time of adjusted number m.
func (c Config) timestampOf(m int64) int64 {
	return c.BaseTime + m*c.interEventDelayUs()/1000
}

// WatermarkAt returns a lower bound on the event time of every event at
// position n or later: the time of the first number in n's group. A source
// that has emitted positions [0, n) may emit a watermark of WatermarkAt(n)-1
// without ever making a later event late.
func (c Config) WatermarkAt(n int64) int64 {
	g := c.OutOfOrderGroupSize
	return c.timestampOf(n / g * g)
}

// auctionLength draws how long auction m, created at ts, stays open: uniform
// in [1, 2*horizon], where horizon is the event time until InFlightAuctions
// more auctions will have been created. So about InFlightAuctions auctions
// are open at any time, whatever the rate. This is the reference's
// nextAuctionLengthMs.
func (p *plan) auctionLength(m, ts int64, r *rng) int64 {
	horizon := p.timestamp(m+p.auctionAhead) - ts
	return 1 + r.intn(max(2*horizon, 1))
}
