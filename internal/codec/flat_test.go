package codec_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
	"pgregory.net/rapid"
)

// Property tests of the flat programs structs compile to: on random values,
// the codec writes exactly what hand-written encoding/binary code and an
// independent reflect-based encoder of the documented format write, and
// decodes (per value and in batches) what they decode.

// TestFlatMatchesHandWritten compares the codec with the hand-written
// encoders and decoders of the benchmark shapes.
func TestFlatMatchesHandWritten(t *testing.T) {
	t.Run("scalars", matchHandWritten(hwAppendScalars, hwDecodeScalars))
	t.Run("bid", matchHandWritten(hwAppendBid, hwDecodeBid))
	t.Run("person", matchHandWritten(hwAppendPerson, hwDecodePerson))
	t.Run("auction", matchHandWritten(hwAppendAuction, hwDecodeAuction))
}

func matchHandWritten[T any](enc func([]byte, T) []byte, dec func([]byte) (T, int)) func(*testing.T) {
	return func(t *testing.T) {
		c := mustFor[T](t)
		batch := codec.NewBatchDecoder(c)
		rapid.Check(t, func(rt *rapid.T) {
			v := rapid.Make[T]().Draw(rt, "v")
			want := enc(nil, v)
			got := c.Append(nil, v)
			if !bytes.Equal(got, want) {
				rt.Fatalf("codec wrote %x, hand-written code %x", got, want)
			}
			hv, hn := dec(want)
			cv, cn, err := c.Decode(want)
			if err != nil || cn != hn || !reflect.DeepEqual(cv, hv) || !reflect.DeepEqual(cv, v) {
				rt.Fatalf("codec decoded %#v (%d bytes, %v), hand-written code %#v (%d bytes), want %#v", cv, cn, err, hv, hn, v)
			}
			bv, bn, err := batch.Decode(want)
			if err != nil || bn != hn || !reflect.DeepEqual(bv, v) {
				rt.Fatalf("batch decoded %#v (%d bytes, %v), want %#v", bv, bn, err, v)
			}
		})
	}
}

// Nest has nested structs, short arrays of structs (flattened into the
// parent's program), a long array (a loop), and the container kinds that stay
// calls, at several depths.
type Nest struct {
	S     Scalars
	Ev    EventLike
	Bids  [3]BidLike
	Long  [70]int16
	Tiny  [2]Celsius
	P     *Scalars
	L     []PersonLike
	I     int
	U     uint
	U16   uint16
	I8    int8
	I32   int32
	F32   float32
	B     []byte
	Flags []Flag
	Inner struct {
		A  [2]struct{ X, Y int32 }
		Ok bool
	}
}

// NestC adds to Nest what rapid.Make cannot generate: complex numbers and
// recursion.
type NestC struct {
	N    Nest
	C    complex64
	C2   complex128
	Next *NestC
}

// TestFlatMatchesReference compares the codec with refAppend on random
// values of NestC: same bytes, and the bytes decode
// back to the value.
func TestFlatMatchesReference(t *testing.T) {
	c := mustFor[NestC](t)
	rapid.Check(t, func(rt *rapid.T) {
		f := rapid.Float64()
		v := NestC{
			N:  rapid.Make[Nest]().Draw(rt, "n"),
			C:  complex(rapid.Float32().Draw(rt, "re"), rapid.Float32().Draw(rt, "im")),
			C2: complex(f.Draw(rt, "re2"), f.Draw(rt, "im2")),
		}
		if rapid.Bool().Draw(rt, "nested") {
			v.Next = &NestC{N: rapid.Make[Nest]().Draw(rt, "next"), C: 1i}
		}
		want := refAppend(nil, reflect.ValueOf(v))
		got := c.Append(nil, v)
		if !bytes.Equal(got, want) {
			rt.Fatalf("codec wrote\n%x\nthe reference\n%x", got, want)
		}
		back, n, err := c.Decode(got)
		if err != nil || n != len(got) || !reflect.DeepEqual(back, v) {
			rt.Fatalf("decode: %v (%d of %d bytes)", err, n, len(got))
		}
	})
}

// refAppend is the wire format of the package comment written out with
// reflect, one kind at a time, for the kinds the property tests generate (no
// maps, whose order varies, and no BinaryMarshalers).
func refAppend(buf []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(buf, 1)
		}
		return append(buf, 0)
	case reflect.Int8:
		return append(buf, byte(v.Int()))
	case reflect.Uint8:
		return append(buf, byte(v.Uint()))
	case reflect.Int, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(buf, v.Int())
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(buf, v.Uint())
	case reflect.Float32:
		return binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(v.Float())))
	case reflect.Float64:
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		bits := reflect.Float64
		if v.Kind() == reflect.Complex64 {
			bits = reflect.Float32
		}
		x := v.Complex()
		re, im := reflect.New(reflect.TypeOf(0.0)).Elem(), reflect.New(reflect.TypeOf(0.0)).Elem()
		re.SetFloat(real(x))
		im.SetFloat(imag(x))
		if bits == reflect.Float32 {
			re, im = re.Convert(reflect.TypeOf(float32(0))), im.Convert(reflect.TypeOf(float32(0)))
		}
		return refAppend(refAppend(buf, re), im)
	case reflect.String:
		return append(binary.AppendUvarint(buf, uint64(v.Len())), v.String()...)
	case reflect.Slice:
		if v.IsNil() {
			return append(buf, 0)
		}
		buf = binary.AppendUvarint(buf, uint64(v.Len())+1)
		for i := range v.Len() {
			buf = refAppend(buf, v.Index(i))
		}
		return buf
	case reflect.Array:
		for i := range v.Len() {
			buf = refAppend(buf, v.Index(i))
		}
		return buf
	case reflect.Pointer:
		if v.IsNil() {
			return append(buf, 0)
		}
		return refAppend(append(buf, 1), v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).Name != "_" {
				buf = refAppend(buf, v.Field(i))
			}
		}
		return buf
	}
	panic("refAppend: kind not covered: " + v.Kind().String())
}
