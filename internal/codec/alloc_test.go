package codec_test

import (
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/codec"
)

// allocs measures the allocations of encoding v into a buffer with room and
// of decoding it again, through a Slot as the engine's hot paths do.
func allocs[T any](t *testing.T, v T) (enc, dec float64) {
	c := codec.NewSlot(mustFor[T](t))
	buf := c.Append(make([]byte, 0, 1024), v)
	enc = testing.AllocsPerRun(100, func() { buf = c.Append(buf[:0], v) })
	dec = testing.AllocsPerRun(100, func() {
		if _, _, err := c.Decode(buf); err != nil {
			t.Fatal(err)
		}
	})
	return enc, dec
}

// TestAllocs pins the allocation budget of the hot path: nothing to encode,
// and only what the decoded value itself needs to decode.
func TestAllocs(t *testing.T) {
	skipUnderRace(t)
	check := func(name string, enc, dec, wantEnc, wantDec float64) {
		t.Helper()
		if enc != wantEnc || dec != wantDec {
			t.Errorf("%s: %.0f allocs to encode, %.0f to decode; want %.0f and %.0f", name, enc, dec, wantEnc, wantDec)
		}
	}
	e, d := allocs(t, int64(-123456))
	check("int64", e, d, 0, 0)
	e, d = allocs(t, "a string")
	check("string", e, d, 0, 1)
	e, d = allocs(t, Rec4{ID: 1, Name: "name", Score: 2, OK: true})
	check("4-field struct", e, d, 0, 1) // the string
	e, d = allocs(t, struct{ A, B int64 }{1, 2})
	check("scalar struct", e, d, 0, 0)
	e, d = allocs(t, [4]uint32{1, 2, 3, 4})
	check("array", e, d, 0, 0)
	e, d = allocs(t, []int64{1, 2, 3})
	check("slice", e, d, 0, 1) // the backing array
	e, d = allocs(t, &Node{Val: 1, Next: &Node{Val: 2}})
	check("list", e, d, 0, 2) // the two nodes
	e, d = allocs(t, Inner{A: 1, b: "xyz", C: []float64{1}})
	check("nested", e, d, 0, 2) // the string and the slice
	e, _ = allocs(t, map[string]int{"a": 1, "b": 2})
	check("map encode", e, 0, 0, 0)
	e, _ = allocs(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	check("time encode (AppendBinary)", e, 0, 0, 0)
}

// TestAllocsWithoutSlot: the Codec that For returns, called by value
// without a Slot, allocates nothing for the value itself when the type is
// flat (scalars, strings, structs and arrays of them), and one heap copy per
// call otherwise.
func TestAllocsWithoutSlot(t *testing.T) {
	skipUnderRace(t)
	cases := []struct {
		name             string
		allocs           func(t *testing.T) (enc, dec float64)
		wantEnc, wantDec float64
	}{
		{"scalars", directAllocs(sampleScalars), 0, 0},
		{"bid", directAllocs(sampleBid), 0, 3}, // its three strings
		{"nested structs", directAllocs(EventLike{Kind: 2, Bid: sampleBid}), 0, 3},
		{"array of structs", directAllocs([2]BidLike{{Channel: "abc"}, {URL: "def"}}), 0, 2},
		{"struct with a pointer", directAllocs(Nest{I: 1}), 1, 1},                           // the value
		{"struct with a slice", directAllocs(Inner{A: 1, b: "xyz", C: []float64{1}}), 1, 3}, // the value, the string, the slice
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			enc, dec := tc.allocs(t)
			if enc != tc.wantEnc || dec != tc.wantDec {
				t.Errorf("%.0f allocs to encode, %.0f to decode; want %.0f and %.0f", enc, dec, tc.wantEnc, tc.wantDec)
			}
		})
	}
}

func directAllocs[T any](v T) func(t *testing.T) (float64, float64) {
	return func(t *testing.T) (float64, float64) {
		c := mustFor[T](t)
		buf := c.Append(make([]byte, 0, 1024), v)
		enc := testing.AllocsPerRun(100, func() { buf = c.Append(buf[:0], v) })
		dec := testing.AllocsPerRun(100, func() {
			if _, _, err := c.Decode(buf); err != nil {
				t.Fatal(err)
			}
		})
		return enc, dec
	}
}

// skipUnderRace skips an allocation budget under the race detector (see
// raceEnabled).
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("allocation budgets are checked without -race")
	}
}
