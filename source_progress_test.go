package weir

import "testing"

// A stride split's progress counts the indexes of its residue class below
// n: those emitted (before Next) of all of them.
func TestStrideProgress(t *testing.T) {
	tests := []struct {
		split             strideSplit
		n                 int64
		wantDone, wantAll int64
	}{
		{strideSplit{Next: 0, Step: 3}, 10, 0, 4}, // 0, 3, 6, 9
		{strideSplit{Next: 6, Step: 3}, 10, 2, 4},
		{strideSplit{Next: 12, Step: 3}, 10, 4, 4}, // done
		{strideSplit{Next: 2, Step: 3}, 10, 0, 3},  // 2, 5, 8
		{strideSplit{Next: 11, Step: 3}, 10, 3, 3},
		{strideSplit{Next: 2, Step: 3}, 2, 0, 0}, // nothing below 2 in its class
		{strideSplit{Next: 0, Step: 1}, 1, 0, 1},
		{strideSplit{Next: 1, Step: 1}, 1, 1, 1},
	}
	for _, tt := range tests {
		done, all := strideProgress(&tt.split, tt.n)
		if done != tt.wantDone || all != tt.wantAll {
			t.Errorf("split %+v below %d: %d of %d, want %d of %d", tt.split, tt.n, done, all, tt.wantDone, tt.wantAll)
		}
	}
}
