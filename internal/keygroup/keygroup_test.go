package keygroup_test

import (
	"testing"

	"github.com/weir-engine/weir/internal/keygroup"
	"pgregory.net/rapid"
)

func TestRangeForMatchesFlink(t *testing.T) {
	// Values computed with Flink's KeyGroupRangeAssignment formulas.
	tests := []struct {
		maxP, p, i int
		want       keygroup.Range
	}{
		{128, 1, 0, keygroup.Range{Start: 0, End: 127}},
		{128, 2, 0, keygroup.Range{Start: 0, End: 63}},
		{128, 2, 1, keygroup.Range{Start: 64, End: 127}},
		{128, 3, 0, keygroup.Range{Start: 0, End: 42}},
		{128, 3, 1, keygroup.Range{Start: 43, End: 85}},
		{128, 3, 2, keygroup.Range{Start: 86, End: 127}},
		{10, 4, 0, keygroup.Range{Start: 0, End: 2}},
		{10, 4, 1, keygroup.Range{Start: 3, End: 4}},
		{10, 4, 2, keygroup.Range{Start: 5, End: 7}},
		{10, 4, 3, keygroup.Range{Start: 8, End: 9}},
		{4, 4, 3, keygroup.Range{Start: 3, End: 3}},
	}
	for _, tt := range tests {
		if got := keygroup.RangeFor(tt.maxP, tt.p, tt.i); got != tt.want {
			t.Errorf("RangeFor(%d, %d, %d) = %v, want %v", tt.maxP, tt.p, tt.i, got, tt.want)
		}
	}
}

// Every key group belongs to exactly one subtask, and OperatorIndex agrees
// with RangeFor.
func TestRangesPartitionKeyGroups(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxP := rapid.IntRange(1, 4096).Draw(t, "maxP")
		p := rapid.IntRange(1, maxP).Draw(t, "p")
		next := 0
		for i := 0; i < p; i++ {
			r := keygroup.RangeFor(maxP, p, i)
			if r.Start != next {
				t.Fatalf("subtask %d starts at %d, want %d", i, r.Start, next)
			}
			if r.Len() < 1 {
				t.Fatalf("subtask %d has empty range %v", i, r)
			}
			for kg := r.Start; kg <= r.End; kg++ {
				if got := keygroup.OperatorIndex(maxP, p, kg); got != i {
					t.Fatalf("OperatorIndex(%d, %d, %d) = %d, want %d", maxP, p, kg, got, i)
				}
			}
			next = r.End + 1
		}
		if next != maxP {
			t.Fatalf("ranges end at %d, want %d", next, maxP)
		}
	})
}

func TestOfSpreadsSmallIntegers(t *testing.T) {
	const maxP = 128
	counts := make([]int, maxP)
	for h := uint32(0); h < 128*100; h++ {
		kg := keygroup.Of(h, maxP)
		if kg < 0 || kg >= maxP {
			t.Fatalf("Of(%d) = %d out of range", h, kg)
		}
		counts[kg]++
	}
	for kg, c := range counts {
		if c < 50 || c > 150 {
			t.Errorf("key group %d got %d of 12800 keys, want about 100", kg, c)
		}
	}
}

func TestDefaultMaxParallelism(t *testing.T) {
	for _, tt := range []struct{ p, want int }{
		{1, 128}, {4, 128}, {100, 256}, {1000, 2048}, {30000, 32768},
	} {
		if got := keygroup.DefaultMaxParallelism(tt.p); got != tt.want {
			t.Errorf("DefaultMaxParallelism(%d) = %d, want %d", tt.p, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		p, maxP int
		ok      bool
	}{
		{1, 128, true}, {128, 128, true}, {129, 128, false}, {0, 128, false}, {1, 0, false}, {1, 1 << 16, false},
	} {
		err := keygroup.Validate(tt.p, tt.maxP)
		if (err == nil) != tt.ok {
			t.Errorf("Validate(%d, %d) = %v, want ok=%v", tt.p, tt.maxP, err, tt.ok)
		}
	}
}
