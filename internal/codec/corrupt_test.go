package codec_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/codec"
)

// truncations checks that every strict prefix of v's encoding fails with
// ErrCorrupt, without panicking. The format is prefix-free (a decoder
// decides everything from the bytes it has read), so no prefix can be a
// valid encoding of another value.
func truncations[T any](name string, v T) roundTripCase {
	return roundTripCase{name, func(t *testing.T) {
		c := mustFor[T](t)
		enc := c.Append(nil, v)
		for i := range len(enc) {
			// A copy of exactly i bytes, so reading past it
			// would be caught by the race detector's checkptr
			// and by the bounds checks.
			prefix := bytes.Clone(enc[:i])
			if _, _, err := c.Decode(prefix); !isCorrupt(err) {
				t.Errorf("prefix of %d/%d bytes: err = %v, want ErrCorrupt", i, len(enc), err)
			}
		}
	}}
}

func TestTruncated(t *testing.T) {
	when := time.Date(2026, 11, 30, 1, 2, 3, 4, time.UTC)
	for _, c := range []roundTripCase{
		truncations("int64", int64(-1<<40)),
		truncations("uint32", uint32(1<<31)),
		truncations("float64", 1.5),
		truncations("complex64", complex64(1i)),
		truncations("string", "hello"),
		truncations("bytes", []byte("hello")),
		truncations("bool", true),
		truncations("ints", []int{1, 2, 300}),
		truncations("map", map[string]int{"a": 1, "b": 2}),
		truncations("time", when),
		truncations("rec4", Rec4{ID: 1 << 50, Name: "name", Score: 2, OK: true}),
		truncations("list", &Node{Val: 1, Next: &Node{Val: 2}}),
		truncations("outer", Outer{Name: "n", P: &Inner{A: 1, b: "b", C: []float64{1}}, Tags: map[string]int{"t": 1},
			Arr: [3]uint16{500}, Bytes: []byte{1}, Nested: [][]string{{"x"}}, When: when, c128: 1}),
	} {
		t.Run(c.name, c.run)
	}
}

// decodeErr decodes buf as a T and returns the error.
func decodeErr[T any](t *testing.T, buf []byte) error {
	_, _, err := mustFor[T](t).Decode(buf)
	return err
}

// TestMalformed is the corruption table: inputs that are complete but not
// an encoding of the type.
func TestMalformed(t *testing.T) {
	tenFF := bytes.Repeat([]byte{0xff}, 10)
	tests := []struct {
		name string
		err  func(t *testing.T) error
	}{
		{"bool 2", func(t *testing.T) error { return decodeErr[bool](t, []byte{2}) }},
		{"bool field 2", func(t *testing.T) error { return decodeErr[Rec4](t, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}) }},
		{"varint 11 bytes", func(t *testing.T) error { return decodeErr[int64](t, append(tenFF, 1)) }},
		{"varint overflow", func(t *testing.T) error { return decodeErr[uint64](t, append(tenFF[:9], 2)) }},
		{"int16 range", func(t *testing.T) error { return decodeErr[int16](t, []byte{0x80, 0x80, 0x04}) }},
		{"int32 range", func(t *testing.T) error { return decodeErr[int32](t, []byte{0x80, 0x80, 0x80, 0x80, 0x10}) }},
		{"uint16 range", func(t *testing.T) error { return decodeErr[uint16](t, []byte{0x80, 0x80, 0x04}) }},
		{"uint32 range", func(t *testing.T) error { return decodeErr[uint32](t, []byte{0x80, 0x80, 0x80, 0x80, 0x10}) }},
		{"named int16 range", func(t *testing.T) error { return decodeErr[[]int16](t, []byte{2, 0x80, 0x80, 0x04}) }},
		{"string length", func(t *testing.T) error { return decodeErr[string](t, []byte{5, 'a'}) }},
		{"string huge length", func(t *testing.T) error { return decodeErr[string](t, append(tenFF[:9], 1)) }},
		{"bytes huge length", func(t *testing.T) error { return decodeErr[[]byte](t, append(tenFF[:9], 1)) }},
		{"slice huge length", func(t *testing.T) error { return decodeErr[[]int](t, []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0}) }},
		{"slice of empty huge length", func(t *testing.T) error { return decodeErr[[]struct{}](t, append(tenFF[:9], 1)) }},
		{"slice of blank huge length", func(t *testing.T) error {
			return decodeErr[[]struct{ _ int }](t, []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
		}},
		{"map huge length", func(t *testing.T) error { return decodeErr[map[int]int](t, []byte{0xff, 0xff, 0xff, 0x0f, 0, 0}) }},
		{"map duplicate key", func(t *testing.T) error { return decodeErr[map[int8]int8](t, []byte{3, 1, 1, 1, 2}) }},
		{"map of empty duplicate key", func(t *testing.T) error {
			return decodeErr[map[struct{}]struct{}](t, []byte{0xff, 0xff, 0xff, 0xff, 0x07})
		}},
		{"pointer presence 2", func(t *testing.T) error { return decodeErr[*int](t, []byte{2, 0}) }},
		{"time garbage", func(t *testing.T) error { return decodeErr[time.Time](t, []byte{3, 1, 2, 3}) }},
		{"time empty", func(t *testing.T) error { return decodeErr[time.Time](t, []byte{0}) }},
		{"empty input", func(t *testing.T) error { return decodeErr[Outer](t, nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.err(t); !isCorrupt(err) {
				t.Errorf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestMarshalError checks that a MarshalBinary failing inside Append, which
// cannot return an error, gives an encoding that fails to decode.
func TestMarshalError(t *testing.T) {
	c := mustFor[failing](t)
	if _, _, err := c.Decode(c.Append(nil, failing{})); !isCorrupt(err) {
		t.Errorf("err = %v, want ErrCorrupt", err)
	}
}

type failing struct{ _ int }

func (failing) MarshalBinary() ([]byte, error) { return nil, codec.ErrNoCodec }
func (*failing) UnmarshalBinary([]byte) error  { return nil }
