package main

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Every value falls in the bucket whose bounds enclose it, and the buckets
// tile the values without gaps.
func TestBucketBounds(t *testing.T) {
	prev := int64(-1)
	for i := range 40 << subBits {
		hi := highest(i)
		if hi <= prev {
			t.Fatalf("bucket %d ends at %d, not after bucket %d's %d", i, hi, i-1, prev)
		}
		for _, v := range []int64{prev + 1, hi} {
			if got := bucket(v); got != i {
				t.Fatalf("bucket(%d) = %d, want %d (bounds %d..%d)", v, got, i, prev+1, hi)
			}
		}
		if rel := float64(hi-prev-1) / float64(prev+1); prev >= 1<<subBits && rel > 1.0/(1<<subBits) {
			t.Fatalf("bucket %d spans %d..%d: %.4f relative, want at most 1/%d", i, prev+1, hi, rel, 1<<subBits)
		}
		prev = hi
	}
}

// Quantiles are within the histogram's precision of the exact ones
// computed from the sorted values, for values from nanoseconds to seconds.
func TestQuantiles(t *testing.T) {
	tests := []struct {
		name string
		gen  func(r *rand.Rand) int64
	}{
		{"small exact", func(r *rand.Rand) int64 { return r.Int64N(100) }},
		{"uniform ms", func(r *rand.Rand) int64 { return r.Int64N(int64(10 * time.Millisecond)) }},
		{"exponential", func(r *rand.Rand) int64 { return int64(r.ExpFloat64() * float64(time.Millisecond)) }},
		{"heavy tail", func(r *rand.Rand) int64 { return int64(1 / (r.Float64() + 1e-6) * float64(time.Microsecond)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var a, b histogram
			vals := make([]int64, 100_000)
			for i := range vals {
				vals[i] = tt.gen(r)
				if i%2 == 0 {
					a.record(time.Duration(vals[i]))
				} else {
					b.record(time.Duration(vals[i]))
				}
			}
			a.merge(&b)
			slices.Sort(vals)
			if a.n != int64(len(vals)) || a.max != vals[len(vals)-1] {
				t.Fatalf("count %d max %d, want %d and %d", a.n, a.max, len(vals), vals[len(vals)-1])
			}
			for _, q := range []float64{0.5, 0.99, 0.999, 1} {
				exact := vals[max(int(q*float64(len(vals))+0.5), 1)-1]
				got := int64(a.quantile(q))
				if got < exact || float64(got-exact) > float64(exact)/(1<<subBits) {
					t.Errorf("q%v = %d, want %d to within 1/%d above", q, got, exact, 1<<subBits)
				}
			}
		})
	}
}

func TestQuantileEmpty(t *testing.T) {
	var h histogram
	if got := h.quantile(0.99); got != 0 {
		t.Errorf("empty p99 = %v, want 0", got)
	}
}
