package codec_test

import (
	"bytes"
	"math"
	"testing"
	"time"
)

// FuzzDecode decodes arbitrary bytes as a struct with a field of most kinds
// (recursive pointers and slices, maps, time.Time, named types). Decoding
// must never panic, and whatever it accepts must encode to bytes that decode
// again. For the map-free FlatRec, encoding is a function of the value, so
// decode-encode-decode-encode must reproduce the same bytes.
func FuzzDecode(f *testing.F) {
	rich, flat := mustFor[FuzzRec](f), mustFor[FlatRec](f)
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
		v, _, err := flat.Decode(data)
		if err != nil {
			if !isCorrupt(err) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		enc1 := flat.Append(nil, v)
		v2, n, err := flat.Decode(enc1)
		if err != nil || n != len(enc1) {
			t.Fatalf("re-encoding does not decode: %v", err)
		}
		if enc2 := flat.Append(nil, v2); !bytes.Equal(enc1, enc2) {
			t.Fatalf("encoding is not stable:\n%x\n%x", enc1, enc2)
		}
	})
}
