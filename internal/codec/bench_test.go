package codec_test

import (
	"encoding/binary"
	"math"
	"testing"
)

// Each benchmark encodes and decodes one value, with the codec beside a
// hand-written (encoding/binary) baseline of the same wire format, so the
// cost of the generic machinery is visible in one run.

var sinkN int

func BenchmarkInt64(b *testing.B) {
	const v = int64(-1234567)
	buf := make([]byte, 0, 64)
	b.Run("codec", func(b *testing.B) {
		c := mustFor[int64](b)
		b.ReportAllocs()
		for b.Loop() {
			buf = c.Append(buf[:0], v)
			x, n, err := c.Decode(buf)
			if err != nil || x != v {
				b.Fatal(err)
			}
			sinkN += n
		}
	})
	b.Run("encoding-binary", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = binary.AppendVarint(buf[:0], v)
			x, n := binary.Varint(buf)
			if n <= 0 || x != v {
				b.Fatal(n)
			}
			sinkN += n
		}
	})
}

func BenchmarkString(b *testing.B) {
	const v = "a record key of medium length"
	buf := make([]byte, 0, 64)
	b.Run("codec", func(b *testing.B) {
		c := mustFor[string](b)
		b.ReportAllocs()
		for b.Loop() {
			buf = c.Append(buf[:0], v)
			x, n, err := c.Decode(buf)
			if err != nil || len(x) != len(v) {
				b.Fatal(err)
			}
			sinkN += n
		}
	})
	b.Run("hand-written", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = binary.AppendUvarint(buf[:0], uint64(len(v)))
			buf = append(buf, v...)
			l, k := binary.Uvarint(buf)
			if k <= 0 || l > uint64(len(buf)-k) {
				b.Fatal(k)
			}
			x := string(buf[k : k+int(l)])
			if len(x) != len(v) {
				b.Fatal(x)
			}
			sinkN += k + int(l)
		}
	})
}

func BenchmarkStruct(b *testing.B) {
	v := Rec4{ID: 987654321, Name: "sensor-17", Score: 21.5, OK: true}
	buf := make([]byte, 0, 64)
	b.Run("codec", func(b *testing.B) {
		c := mustFor[Rec4](b)
		b.ReportAllocs()
		for b.Loop() {
			buf = c.Append(buf[:0], v)
			x, n, err := c.Decode(buf)
			if err != nil || x.ID != v.ID {
				b.Fatal(err)
			}
			sinkN += n
		}
	})
	b.Run("hand-written", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = appendRec4(buf[:0], v)
			x, n, ok := decodeRec4(buf)
			if !ok || x.ID != v.ID {
				b.Fatal(ok)
			}
			sinkN += n
		}
	})
}

// appendRec4 and decodeRec4 are what one would write by hand for Rec4, in
// the codec's format and with the same checks.
func appendRec4(buf []byte, r Rec4) []byte {
	buf = binary.AppendVarint(buf, r.ID)
	buf = binary.AppendUvarint(buf, uint64(len(r.Name)))
	buf = append(buf, r.Name...)
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(r.Score))
	if r.OK {
		return append(buf, 1)
	}
	return append(buf, 0)
}

func decodeRec4(buf []byte) (Rec4, int, bool) {
	var r Rec4
	id, n := binary.Varint(buf)
	if n <= 0 {
		return r, 0, false
	}
	l, k := binary.Uvarint(buf[n:])
	if k <= 0 || l > uint64(len(buf)-n-k) {
		return r, 0, false
	}
	n += k
	r.ID, r.Name = id, string(buf[n:n+int(l)])
	n += int(l)
	if len(buf)-n < 9 || buf[n+8] > 1 {
		return r, 0, false
	}
	r.Score = math.Float64frombits(binary.LittleEndian.Uint64(buf[n:]))
	r.OK = buf[n+8] == 1
	return r, n + 9, true
}

// BenchmarkNested shows the reflective paths: pointer, slice, map.
func BenchmarkNested(b *testing.B) {
	v := Inner{A: 1, b: "inner", C: []float64{1, 2, 3}}
	buf := make([]byte, 0, 256)
	for _, bc := range []struct {
		name string
		run  func()
	}{
		{"struct-with-slice", benchCodec(b, v, &buf)},
		{"pointer", benchCodec(b, &v, &buf)},
		{"map-4", benchCodec(b, map[string]int64{"a": 1, "b": 2, "c": 3, "d": 4}, &buf)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bc.run()
			}
		})
	}
}

func benchCodec[T any](b *testing.B, v T, buf *[]byte) func() {
	c := mustFor[T](b)
	return func() {
		*buf = c.Append((*buf)[:0], v)
		_, n, err := c.Decode(*buf)
		if err != nil {
			b.Fatal(err)
		}
		sinkN += n
	}
}

func BenchmarkKeyHasher(b *testing.B) {
	str, i64, comp := mustHasher[string](b), mustHasher[int64](b), mustHasher[CompositeKey](b)
	var sink uint32
	b.Run("string", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink += str("user-1234567")
		}
	})
	b.Run("int64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink += i64(1234567)
		}
	})
	b.Run("struct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink += comp(CompositeKey{A: 7, B: "region-eu"})
		}
	})
	sinkN += int(sink)
}
