package codec_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
	"pgregory.net/rapid"
)

// TestBatchDecoderMatchesDecode: on random sequences of values of every kind
// the codec handles, decoding them in one batch gives what decoding them one
// by one gives, and the values do not change when the input is overwritten
// (the network buffer is recycled).
func TestBatchDecoderMatchesDecode(t *testing.T) {
	c := mustFor[PropRec](t)
	d := codec.NewBatchDecoder(c)
	rapid.Check(t, func(rt *rapid.T) {
		vs := rapid.SliceOfN(rapid.Make[PropRec](), 0, 20).Draw(rt, "vs")
		var buf []byte
		for _, v := range vs {
			buf = c.Append(buf, v)
		}
		one, rest := make([]PropRec, 0, len(vs)), buf
		for len(rest) > 0 {
			v, n, err := c.Decode(rest)
			if err != nil {
				rt.Fatal(err)
			}
			one, rest = append(one, v), rest[n:]
		}
		all, err := d.DecodeAll([]PropRec{}, buf)
		if err != nil {
			rt.Fatal(err)
		}
		if !reflect.DeepEqual(all, one) {
			rt.Fatalf("batch decoded %#v, one by one %#v", all, one)
		}
		for i := range buf {
			buf[i] = 0xEE
		}
		if len(vs) > 0 && !reflect.DeepEqual(all, vs) {
			rt.Fatalf("values changed with their input: %#v, want %#v", all, vs)
		}
	})
}

// TestBatchDecoderAllocs: a batch of records with strings costs one
// allocation for all its strings, where Decode costs one per string field.
func TestBatchDecoderAllocs(t *testing.T) {
	skipUnderRace(t)
	cases := []struct {
		name         string
		decode       func(t *testing.T) (batch, perValue float64)
		wantPerValue float64 // Decode of the 100 values: one per string
	}{
		{"bid", batchAllocs(sampleBid), 300},
		{"person", batchAllocs(samplePerson), 600},
		{"string", batchAllocs(sampleBid.URL), 100},
		{"bytes", batchAllocs([]byte(sampleBid.URL)), 100},
		{"scalars", batchAllocs(sampleScalars), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			batch, perValue := tc.decode(t)
			if batch > 1 || perValue != tc.wantPerValue {
				t.Errorf("100 values: DecodeAll %.0f allocations, Decode %.0f; want at most 1 and %.0f", batch, perValue, tc.wantPerValue)
			}
		})
	}
}

// batchAllocs measures the allocations of decoding 100 copies of v with
// DecodeAll into a slab with room, and with Decode one by one (through a
// Slot, as the engine's readers do today).
func batchAllocs[T any](v T) func(t *testing.T) (float64, float64) {
	return func(t *testing.T) (float64, float64) {
		c := mustFor[T](t)
		d := codec.NewBatchDecoder(c)
		var buf []byte
		for range 100 {
			buf = c.Append(buf, v)
		}
		slab := make([]T, 0, 100)
		batch := testing.AllocsPerRun(20, func() {
			var err error
			if slab, err = d.DecodeAll(slab[:0], buf); err != nil || len(slab) != 100 {
				t.Fatalf("%d values, %v", len(slab), err)
			}
		})
		if !reflect.DeepEqual(slab[99], v) {
			t.Fatalf("decoded %#v, want %#v", slab[99], v)
		}
		slot := codec.NewSlot(c)
		perValue := testing.AllocsPerRun(20, func() {
			for rest := buf; len(rest) > 0; {
				_, n, err := slot.Decode(rest)
				if err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
		})
		return batch, perValue
	}
}

// TestBatchDecoderErrors: a bad value stops DecodeAll with an error wrapping
// ErrCorrupt that locates it, and the values before it are returned.
func TestBatchDecoderErrors(t *testing.T) {
	c := mustFor[BidLike](t)
	good := c.Append(c.Append(nil, sampleBid), sampleBid)
	cases := []struct {
		name    string
		buf     []byte
		wantN   int
		wantMsg string
	}{
		{"truncated last value", good[:len(good)-1], 1, "value 1 at byte"},
		{"trailing byte", append(bytes.Clone(good), 0x80), 2, "value 2 at byte"},
		{"bad length in first value", append([]byte{2, 2, 2, 0xFF, 0xFF, 0x7F}, good...), 0, "value 0 at byte 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := codec.NewBatchDecoder(c)
			got, err := d.DecodeAll([]BidLike{{Price: 1}}, tc.buf)
			if !isCorrupt(err) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("err = %v, want ErrCorrupt mentioning %q", err, tc.wantMsg)
			}
			if len(got) != 1+tc.wantN || got[0].Price != 1 {
				t.Fatalf("got %d values (first %+v), want the given one and %d decoded", len(got), got[0], tc.wantN)
			}
			for _, v := range got[1:] {
				if v != sampleBid {
					t.Errorf("decoded %+v, want %+v", v, sampleBid)
				}
			}
		})
	}
	t.Run("type that encodes to nothing", func(t *testing.T) {
		d := codec.NewBatchDecoder(mustFor[struct{}](t))
		if _, err := d.DecodeAll(nil, []byte{1}); !isCorrupt(err) {
			t.Fatalf("err = %v, want ErrCorrupt", err)
		}
	})
}

// TestBatchDecoderSlabReuse: DecodeInto overwrites everything a reused slab
// entry held, and a byte slice from the arena cannot be appended over its
// neighbour.
func TestBatchDecoderSlabReuse(t *testing.T) {
	type rec struct {
		A, B []byte
		P    *int
		S    string
	}
	c := mustFor[rec](t)
	d := codec.NewBatchDecoder(c)
	buf := c.Append(nil, rec{A: []byte("aa"), B: []byte("bb")})
	one := 1
	v := rec{A: []byte("old"), P: &one, S: "old"}
	n, err := d.DecodeInto(buf, &v)
	if err != nil || n != len(buf) {
		t.Fatalf("DecodeInto: %d of %d bytes, %v", n, len(buf), err)
	}
	if want := (rec{A: []byte("aa"), B: []byte("bb")}); !reflect.DeepEqual(v, want) {
		t.Fatalf("decoded %#v, want %#v", v, want)
	}
	_ = append(v.A, 'x', 'x')
	if string(v.B) != "bb" {
		t.Errorf("appending to A changed B to %q", v.B)
	}
	if _, err := d.DecodeInto(buf[:3], &v); !isCorrupt(err) || !reflect.DeepEqual(v, rec{}) {
		t.Errorf("truncated: %v, value %#v; want ErrCorrupt and zero", err, v)
	}
}

// upperCodec is a user's Codec that BatchDecoder must call as it is.
type upperCodec struct{}

func (upperCodec) Append(buf []byte, v string) []byte {
	return append(append(buf, byte(len(v))), strings.ToUpper(v)...)
}

func (upperCodec) Decode(buf []byte) (string, int, error) {
	if len(buf) == 0 || int(buf[0]) > len(buf)-1 {
		return "", 0, errors.Join(codec.ErrCorrupt)
	}
	return string(buf[1 : 1+buf[0]]), 1 + int(buf[0]), nil
}

func TestBatchDecoderUserCodec(t *testing.T) {
	d := codec.NewBatchDecoder[string](upperCodec{})
	buf := d.Append(d.Append(nil, "ab"), "cd")
	got, err := d.DecodeAll(nil, buf)
	if err != nil || !reflect.DeepEqual(got, []string{"AB", "CD"}) {
		t.Fatalf("got %q, %v; want [AB CD]", got, err)
	}
	if _, err := d.DecodeAll(nil, []byte{5, 'a'}); !isCorrupt(err) {
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
}

// TestBatchDecoderShares: only types that can hold strings or byte slices,
// under this package's codecs, share a batch's allocation.
func TestBatchDecoderShares(t *testing.T) {
	type scalars struct {
		A int64
		B float64
		C [4]uint16
	}
	type nested struct {
		N int
		S []struct{ Name string }
	}
	type node struct {
		V    int
		Next *node
	}
	for _, tc := range []struct {
		name string
		d    interface{ Shares() bool }
		want bool
	}{
		{"int64", codec.NewBatchDecoder(mustFor[int64](t)), false},
		{"struct of scalars", codec.NewBatchDecoder(mustFor[scalars](t)), false},
		{"recursive pointer of ints", codec.NewBatchDecoder(mustFor[node](t)), false},
		{"string", codec.NewBatchDecoder(mustFor[string](t)), true},
		{"[]byte", codec.NewBatchDecoder(mustFor[[]byte](t)), true},
		{"string in a slice of structs", codec.NewBatchDecoder(mustFor[nested](t)), true},
		{"map key", codec.NewBatchDecoder(mustFor[map[string]int](t)), true},
		{"a user's codec", codec.NewBatchDecoder[string](upperCodec{}), false},
	} {
		if got := tc.d.Shares(); got != tc.want {
			t.Errorf("%s: Shares() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
