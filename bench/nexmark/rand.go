package nexmark

import (
	"math"
	"math/bits"
)

// rng is a splitmix64 stream. Each event gets a fresh one seeded from
// (Config.Seed, event number), which is what makes EventAt independent of the
// order events are asked for; splitmix64 is used because seeding it costs
// nothing and nearby seeds still give unrelated streams once mixed.
type rng struct{ state uint64 }

const golden = 0x9e3779b97f4a7c15

// mix64 is the splitmix64 finaliser (Stafford variant 13).
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// newRNG returns the stream for event number n under seed.
func newRNG(seed uint64, n int64) rng {
	return rng{state: mix64(seed+golden) ^ mix64(uint64(n)*golden+1)}
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

// float returns a number in [0, 1) with 53 random bits.
func (r *rng) float() float64 {
	return float64(r.next()>>11) * (1.0 / (1 << 53))
}

// price returns a price in cents, log-uniform over [100, 1e8], as the
// reference's PriceGenerator does (10^(6u) * 100, rounded; written with Exp,
// which is cheaper than Pow).
func (r *rng) price() int64 {
	return int64(math.Round(math.Exp(r.float()*(6*math.Ln10)) * 100))
}
