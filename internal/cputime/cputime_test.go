package cputime

import "testing"

// Work on the CPU shows in Process.
func TestProcessGrowsWithWork(t *testing.T) {
	before, err := Process()
	if err != nil {
		t.Fatal(err)
	}
	x := uint64(1)
	for {
		for range 1 << 20 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		now, err := Process()
		if err != nil {
			t.Fatal(err)
		}
		if now > before {
			break
		}
	}
	if x == 0 {
		t.Log(x) // keep the loop
	}
}
