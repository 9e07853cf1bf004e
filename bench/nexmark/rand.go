package nexmark

import (
	"math"
	"math/bits"
)

// rng is a splitmix64 stream. All events draw from one stream per
// Config.Seed, event m from its own window of eventSteps steps starting at
// step m*eventSteps (see rngAt). Seeding is so one multiply and add, and
// EventAt stays independent of the order events are asked for. The sequence
// is ours, not the reference's (which draws from java.util.Random): what the
// generator keeps of the reference is each field's distribution.
type rng struct{ state uint64 }

// eventSteps is how many steps of the stream each event owns. An event
// takes at most 10 (an auction; TestEventsStayInTheirWindow), so the
// windows never overlap.
const eventSteps = 16

// rngAt returns event m's window of the stream whose start is base
// (mix64(Seed+golden); see plan).
func rngAt(base uint64, m int64) rng {
	return rng{state: base + uint64(m)*eventSteps*golden}
}

const golden = 0x9e3779b97f4a7c15

// mix64 is the splitmix64 finaliser (Stafford variant 13).
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) next() uint64 {
	r.state += golden
	return mix64(r.state)
}

// intn returns a number in [0, n) for n > 0 by Lemire's multiply-shift; the
// bias is below 2^-40 for every n the generator uses.
func (r *rng) intn(n int64) int64 {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int64(hi)
}

// split returns one step of the stream as two independent 32-bit words,
// for draws that need no more (see lemire32): one step instead of two.
func (r *rng) split() (hi, lo uint32) {
	x := r.next()
	return uint32(x >> 32), uint32(x)
}

// lemire32 maps 32 random bits x to [0, n) for 0 < n <= 2^32 by Lemire's
// multiply-shift. Each value is drawn with probability within n/2^32 of 1/n
// (exactly 1/n when n is a power of two): below 2^-18 relative for the
// ranges it serves (hot ratios, 10,000 channels, Extra sizes and 2^20
// offsets), far below what any test or query could tell.
func lemire32(x uint32, n int64) int64 {
	return int64(uint64(x) * uint64(n) >> 32)
}

// price returns a price in cents, log-uniform over [100, 1e8], as the
// reference's PriceGenerator does: 10^(6u) * 100, rounded, for u uniform in
// [0, 1). 10^(6u) is computed as a table entry times a short series (see
// priceTable), which agrees with math.Exp to about 1e-15 relative and costs
// a third of it.
func (r *rng) price() int64 {
	x := r.next()
	// The top priceBits bits of u pick the table entry; the next 53-priceBits
	// make the fraction f in [0, 1) of the entry's step.
	k := x >> (64 - priceBits)
	// t = f * priceStep in [0, 6 ln 10 / 2^priceBits), below 0.0135, for
	// f = i/2^53: one product, i * (priceStep/2^53), since scaling by a
	// power of two is exact, so the result has the same bits as f*priceStep.
	t := float64(int64(x<<priceBits>>11)) * (priceStep / (1 << 53))
	// e^t by its Taylor series to t^5 (the first term left out, t^6/720, is
	// below 1e-14), grouped as Estrin's scheme so that the terms are
	// computed side by side rather than in one chain.
	t2 := t * t
	e := (1 + t) + t2*((1.0/2+t*(1.0/6))+t2*(1.0/24+t*(1.0/120)))
	// Rounding half up by adding 0.5 is math.Round for prices (positive,
	// far below 2^52) and costs a fifth of it.
	return int64(priceTable[k&(1<<priceBits-1)]*e + 0.5)
}

// priceBits is how many bits of a price's random word index priceTable.
const priceBits = 10

// priceStep is the exponent's growth per table entry: 6 ln 10 / 2^priceBits.
const priceStep = 6 * math.Ln10 / (1 << priceBits)

// priceTable[k] is 100 * e^(k*priceStep): the price at the start of the
// k-th of the 2^priceBits equal steps of the exponent.
var priceTable = func() (t [1 << priceBits]float64) {
	for k := range t {
		t[k] = 100 * math.Exp(float64(k)*priceStep)
	}
	return t
}()
