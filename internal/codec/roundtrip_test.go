package codec_test

import (
	"bytes"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/codec"
)

// mustFor returns the codec of T or fails the test.
func mustFor[T any](t testing.TB) codec.Codec[T] {
	t.Helper()
	c, err := codec.For[T]()
	if err != nil {
		t.Fatalf("For[%T]: %v", *new(T), err)
	}
	return c
}

// roundTripCase is one row of TestRoundTrip: a value of any type.
type roundTripCase struct {
	name string
	run  func(t *testing.T)
}

// rt makes a round-trip case for v: decoding its encoding gives v back
// (reflect.DeepEqual, which tells nil slices and maps from empty ones) and
// consumes every byte; with bytes following, it consumes only its own.
func rt[T any](name string, v T) roundTripCase {
	return roundTripCase{name, func(t *testing.T) {
		c := mustFor[T](t)
		enc := c.Append(nil, v)
		got, n, err := c.Decode(enc)
		if err != nil {
			t.Fatalf("Decode(%x): %v", enc, err)
		}
		if n != len(enc) {
			t.Errorf("Decode consumed %d of %d bytes", n, len(enc))
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("round trip of %#v gave %#v", v, got)
		}
		// Appending to a non-empty buffer keeps what is there, and a
		// decoder stops at the end of its own value.
		prefix := []byte{0xAA, 0xBB}
		two := c.Append(c.Append(append([]byte(nil), prefix...), v), v)
		if !bytes.Equal(two[:2], prefix) {
			t.Fatalf("Append overwrote the buffer's contents")
		}
		rest := two[2:]
		for i := range 2 {
			got, n, err := c.Decode(rest)
			if err != nil || !reflect.DeepEqual(got, v) {
				t.Fatalf("value %d of a sequence: %#v, %v", i, got, err)
			}
			rest = rest[n:]
		}
		if len(rest) != 0 {
			t.Errorf("%d bytes left after decoding two values", len(rest))
		}
	}}
}

func TestRoundTrip(t *testing.T) {
	inner := Inner{A: -7, b: "unexported", C: []float64{1.5, math.Inf(-1)}}
	when := time.Date(2026, 11, 30, 12, 34, 56, 789, time.UTC)
	list := &Node{Val: 1, Next: &Node{Val: 2, Next: &Node{Val: 3}}}
	cases := []roundTripCase{
		rt("bool true", true),
		rt("bool false", false),
		rt("int", math.MinInt),
		rt("int max", math.MaxInt),
		rt("int8", int8(-128)),
		rt("int16", int16(math.MinInt16)),
		rt("int32", int32(math.MaxInt32)),
		rt("int64", int64(math.MinInt64)),
		rt("int64 small", int64(-1)),
		rt("uint", uint(math.MaxUint)),
		rt("uint8", uint8(255)),
		rt("uint16", uint16(math.MaxUint16)),
		rt("uint32", uint32(math.MaxUint32)),
		rt("uint64", uint64(math.MaxUint64)),
		rt("float32", float32(-3.25)),
		rt("float64", math.SmallestNonzeroFloat64),
		rt("float64 inf", math.Inf(1)),
		rt("complex64", complex64(complex(1, -2))),
		rt("complex128", complex(math.Pi, math.E)),
		rt("string", "héllo, wörld"),
		rt("string empty", ""),
		rt("bytes", []byte{0, 1, 2, 255}),
		rt("bytes nil", []byte(nil)),
		rt("bytes empty", []byte{}),
		rt("named float", Celsius(-40)),
		rt("named bytes", []Flag{1, 2, 3}),
		rt("ints", []int{-1, 0, 1, 1 << 30}),
		rt("int64s", []int64{-1, 0, 1, 1 << 40}),
		rt("ints nil", []int(nil)),
		rt("ints empty", []int{}),
		rt("strings", []string{"a", "", "ccc"}),
		rt("array", [4]int16{-1, 2, -3, 4}),
		rt("byte array", [5]byte{9, 8, 7, 6, 5}),
		rt("nested slices", [][]int{nil, {}, {1}}),
		rt("map", map[string]int{"a": 1, "b": -2, "": 0}),
		rt("map nil", map[string]int(nil)),
		rt("map empty", map[string]int{}),
		rt("map struct key", map[Rec4][]string{{ID: 1, Name: "x"}: {"a"}, {ID: 2}: nil}),
		rt("map of maps", map[int]map[string]bool{1: {"t": true}, 2: nil}),
		rt("pointer", &inner),
		rt("pointer nil", (*Inner)(nil)),
		rt("pointer to pointer", func() **int { x := 5; p := &x; return &p }()),
		rt("struct unexported", inner),
		rt("struct nested", Outer{
			Name: "outer", in: inner, P: &inner, Tags: map[string]int{"k": 1},
			Arr: [3]uint16{1, 2, 3}, Bytes: []byte("xyz"), Nested: [][]string{{"a"}, nil, {}},
			Temp: 21.5, Flags: []Flag{7}, When: when, u8: 200, i8: -100,
			c64: complex(1, 2), c128: complex(-3, 4),
		}),
		rt("struct zero", Outer{}),
		rt("struct blank field", WithBlank{A: 1, B: "b"}),
		rt("struct zero-size fields", WithEmpty{A: 1, B: 2}),
		rt("empty struct", struct{}{}),
		rt("empty structs", []struct{}{{}, {}, {}}),
		rt("linked list", list),
		rt("tree", Tree{Label: "root", Kids: []Tree{{Label: "a"}, {Label: "b", Kids: []Tree{{Label: "c"}}}}}),
		rt("recursive map", Graph{"a": {"b": nil, "c": {}}, "d": nil}),
		rt("time", when),
		rt("time zero", time.Time{}),
		rt("time slice", []time.Time{when, when.Add(time.Hour)}),
		rt("time pointer", &when),
		rt("rec4", Rec4{ID: 42, Name: "answer", Score: 0.5, OK: true}),
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestFixedEncodings pins the bytes of a few values: they are part of the
// network and checkpoint format.
func TestFixedEncodings(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want []byte
	}{
		{"int64 0", mustFor[int64](t).Append(nil, 0), []byte{0}},
		{"int64 -1", mustFor[int64](t).Append(nil, -1), []byte{1}},
		{"int64 1", mustFor[int64](t).Append(nil, 1), []byte{2}},
		{"int64 64", mustFor[int64](t).Append(nil, 64), []byte{0x80, 0x01}},
		{"uint64 300", mustFor[uint64](t).Append(nil, 300), []byte{0xac, 0x02}},
		{"int8 -1", mustFor[int8](t).Append(nil, -1), []byte{0xff}},
		{"bool", mustFor[bool](t).Append(nil, true), []byte{1}},
		{"float64 1", mustFor[float64](t).Append(nil, 1), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{"string", mustFor[string](t).Append(nil, "hi"), []byte{2, 'h', 'i'}},
		{"bytes nil", mustFor[[]byte](t).Append(nil, nil), []byte{0}},
		{"bytes empty", mustFor[[]byte](t).Append(nil, []byte{}), []byte{1}},
		{"bytes", mustFor[[]byte](t).Append(nil, []byte("hi")), []byte{3, 'h', 'i'}},
		{"ints", mustFor[[]int32](t).Append(nil, []int32{-1, 1}), []byte{3, 1, 2}},
		{"array", mustFor[[2]int32](t).Append(nil, [2]int32{-1, 1}), []byte{1, 2}},
		{"pointer nil", mustFor[*int](t).Append(nil, nil), []byte{0}},
		{"pointer", mustFor[*int](t).Append(nil, new(int)), []byte{1, 0}},
		{"map", mustFor[map[string]bool](t).Append(nil, map[string]bool{"a": true}), []byte{2, 1, 'a', 1}},
		{"struct", mustFor[Rec4](t).Append(nil, Rec4{ID: 1, Name: "n", Score: 0, OK: true}),
			[]byte{2, 1, 'n', 0, 0, 0, 0, 0, 0, 0, 0, 1}},
		{"blank field skipped", mustFor[WithBlank](t).Append(nil, WithBlank{A: 1, B: "b"}), []byte{2, 1, 'b'}},
		{"time", mustFor[time.Time](t).Append(nil, time.Unix(0, 0).UTC()),
			append([]byte{15}, must(time.Unix(0, 0).UTC().MarshalBinary())...)},
	}
	for _, tt := range tests {
		if !bytes.Equal(tt.got, tt.want) {
			t.Errorf("%s: got %x, want %x", tt.name, tt.got, tt.want)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestNilAndEmpty spells out what the format keeps: nil and empty slices
// and maps decode as they were encoded.
func TestNilAndEmpty(t *testing.T) {
	c := mustFor[Outer](t)
	v, _, err := c.Decode(c.Append(nil, Outer{Nested: [][]string{nil, {}}, Bytes: []byte{}}))
	if err != nil {
		t.Fatal(err)
	}
	if v.Nested[0] != nil || v.Nested[1] == nil || v.Bytes == nil || v.Flags != nil || v.Tags != nil {
		t.Errorf("nil/empty not kept: %#v", v)
	}
}

// TestDecodeDoesNotAlias checks that decoded strings and slices own their
// bytes: the input buffer is recycled after decoding.
func TestDecodeDoesNotAlias(t *testing.T) {
	c := mustFor[Outer](t)
	buf := c.Append(nil, Outer{Name: "name", Bytes: []byte("bytes"), Flags: []Flag{1}, Arr: [3]uint16{1}})
	v, _, err := c.Decode(buf)
	if err != nil {
		t.Fatal(err)
	}
	clear(buf)
	if v.Name != "name" || string(v.Bytes) != "bytes" || v.Flags[0] != 1 {
		t.Errorf("decoded value changed with its input: %#v", v)
	}
}

func TestTimeZone(t *testing.T) {
	when := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("X", 5*3600))
	c := mustFor[time.Time](t)
	got, _, err := c.Decode(c.Append(nil, when))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(when) || got.Format(time.RFC3339Nano) != when.Format(time.RFC3339Nano) {
		t.Errorf("got %v, want %v", got, when)
	}
}

func TestFastPathCodecs(t *testing.T) {
	// The predeclared types get specialized codecs, not the reflective
	// one: checked by the codec's dynamic type name.
	for _, c := range []any{
		mustFor[int64](t), mustFor[string](t), mustFor[[]byte](t), mustFor[bool](t),
		mustFor[float64](t), mustFor[uint8](t), mustFor[complex128](t),
	} {
		if name := reflect.TypeOf(c).Name(); name == "" || name[:4] == "plan" {
			t.Errorf("%T is not a specialized codec", c)
		}
	}
	if name := reflect.TypeOf(mustFor[Celsius](t)).Name(); name[:4] != "plan" {
		t.Errorf("named type got %s, want the plan codec", name)
	}
}

func TestLongList(t *testing.T) {
	// Recursion in the decoder is bounded by maxDepth (10000) levels.
	build := func(n int) *Node {
		var head *Node
		for i := range n {
			head = &Node{Val: i, Next: head}
		}
		return head
	}
	c := mustFor[*Node](t)
	got, _, err := c.Decode(c.Append(nil, build(5000)))
	if err != nil {
		t.Fatal(err)
	}
	for i := 4999; i >= 0; i-- {
		if got.Val != i {
			t.Fatalf("node %d has %d", i, got.Val)
		}
		got = got.Next
	}
	if _, _, err := c.Decode(c.Append(nil, build(20000))); !isCorrupt(err) {
		t.Errorf("a list deeper than the limit decoded: %v", err)
	}
}
