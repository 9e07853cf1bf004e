package codec_test

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/codec"
)

// FuzzDecode decodes arbitrary bytes as a struct with a field of most kinds
// (recursive pointers and slices, maps, time.Time, named types). Decoding
// must never panic, and whatever it accepts must encode to bytes that decode
// again. For the map-free FlatRec, encoding is a function of the value, so
// decode-encode-decode-encode must reproduce the same bytes, and a
// BatchDecoder must decode what Decode decodes.
func FuzzDecode(f *testing.F) {
	rich, flat := mustFor[FuzzRec](f), mustFor[FlatRec](f)
	batch := codec.NewBatchDecoder(flat)
	f.Add([]byte{})
	f.Add(rich.Append(nil, FuzzRec{}))
	f.Add(rich.Append(nil, FuzzRec{
		A: true, B: -1, C: 300, D: -70000, E: math.MinInt64, F: 1 << 30, G: 7, H: 1.5, I: math.NaN(), J: 1i,
		S: "héllo", Bs: []byte{}, Ns: []Celsius{1, -1}, Arr: [3]uint16{1, 2, 3},
		P: &FuzzRec{S: "inner", L: []FuzzRec{{}}}, M: map[string]int32{"a": 1},
		T: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), F8: []Flag{9},
	}))
	f.Add(flat.Append(nil, FlatRec{A: true, S: "x", Bs: []byte{1}, P: &FlatRec{L: []FlatRec{{D: -1}}}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if v, n, err := rich.Decode(data); err == nil {
			if n > len(data) {
				t.Fatalf("consumed %d of %d bytes", n, len(data))
			}
			enc := rich.Append(nil, v)
			if _, n2, err := rich.Decode(enc); err != nil || n2 != len(enc) {
				t.Fatalf("re-encoding of an accepted value does not decode: %v (%d of %d bytes)", err, n2, len(enc))
			}
		} else if !isCorrupt(err) {
			t.Fatalf("error does not wrap ErrCorrupt: %v", err)
		}
		v, n, err := flat.Decode(data)
		// The batch decoder accepts and refuses what Decode does, and
		// decodes the same value (compared by encoding: floats may be
		// NaN).
		bv, bn, berr := batch.Decode(data)
		if (berr == nil) != (err == nil) || bn != n {
			t.Fatalf("Decode: %d bytes, %v; BatchDecoder: %d bytes, %v", n, err, bn, berr)
		}
		if err != nil {
			if !isCorrupt(err) || !isCorrupt(berr) {
				t.Fatalf("error does not wrap ErrCorrupt: %v, %v", err, berr)
			}
			return
		}
		enc1 := flat.Append(nil, v)
		if benc := flat.Append(nil, bv); !bytes.Equal(benc, enc1) {
			t.Fatalf("BatchDecoder decoded a different value:\n%x\n%x", benc, enc1)
		}
		v2, n, err := flat.Decode(enc1)
		if err != nil || n != len(enc1) {
			t.Fatalf("re-encoding does not decode: %v", err)
		}
		if enc2 := flat.Append(nil, v2); !bytes.Equal(enc1, enc2) {
			t.Fatalf("encoding is not stable:\n%x\n%x", enc1, enc2)
		}
	})
}
