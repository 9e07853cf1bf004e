package main

import (
	"math/bits"
	"time"
)

// subBits sets the precision of a histogram: 2^subBits linear sub-buckets
// per power of two, so a recorded value is known to within 1/2^subBits
// (0.8%), in the manner of HdrHistogram with two significant digits.
const subBits = 7

// histogram counts durations in log-linear buckets: exact below
// 2^subBits ns, then 2^subBits buckets per power of two. Its zero value is
// empty and ready; it is not safe for concurrent use.
type histogram struct {
	counts []int64
	n      int64
	max    int64
}

// bucket is the index of the bucket that holds v >= 0.
func bucket(v int64) int {
	if v < 1<<subBits {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - subBits // >= 1
	return e<<subBits + int(v>>(e-1)) - 1<<subBits
}

// highest is the largest value bucket i holds.
func highest(i int) int64 {
	e := i >> subBits
	if e == 0 {
		return int64(i)
	}
	low := int64(1<<subBits+i&(1<<subBits-1)) << (e - 1)
	return low + 1<<(e-1) - 1
}

// record adds d (a negative d counts as 0).
func (h *histogram) record(d time.Duration) {
	v := max(int64(d), 0)
	i := bucket(v)
	if i >= len(h.counts) {
		h.counts = append(h.counts, make([]int64, i+1-len(h.counts))...)
	}
	h.counts[i]++
	h.n++
	h.max = max(h.max, v)
}

// merge adds the counts of o.
func (h *histogram) merge(o *histogram) {
	if len(o.counts) > len(h.counts) {
		h.counts = append(h.counts, make([]int64, len(o.counts)-len(h.counts))...)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// quantile is the smallest bucket bound at or below which a fraction q of
// the values lie (HdrHistogram's "highest equivalent value"), never above
// the largest value recorded; 0 when the histogram is empty.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := int64(q*float64(h.n) + 0.5)
	rank = min(max(rank, 1), h.n)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(min(highest(i), h.max))
		}
	}
	return time.Duration(h.max)
}
