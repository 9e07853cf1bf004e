package codec

import (
	"encoding"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"unsafe"
)

var (
	marshalerType   = reflect.TypeFor[encoding.BinaryMarshaler]()
	appenderType    = reflect.TypeFor[encoding.BinaryAppender]()
	unmarshalerType = reflect.TypeFor[encoding.BinaryUnmarshaler]()
)

// isMarshaler reports whether t encodes through its own binary methods:
// T or *T is an encoding.BinaryMarshaler and *T an encoding.BinaryUnmarshaler.
// A type with only one half of the pair is encoded by reflection. Note that
// a struct embedding such a type (say time.Time) gets the methods promoted,
// and so is encoded by them alone, as with encoding/gob and encoding/json.
func isMarshaler(t reflect.Type) bool {
	if t.Kind() == reflect.Interface || t.Kind() == reflect.Pointer {
		return false
	}
	pt := reflect.PointerTo(t)
	return pt.Implements(marshalerType) && pt.Implements(unmarshalerType)
}

// marshalerPlan encodes a value as uvarint(len) followed by the bytes of its
// AppendBinary or MarshalBinary, and decodes with UnmarshalBinary.
//
// The value's own methods are called through a pointer to it. For methods
// on the value receiver that pointer is safe to hand out, because the
// compiler-made (*T) wrapper copies the value first; methods on *T are user
// code that could keep the pointer, and p may point into a stack, so those
// get a heap copy. Decoding always goes through a heap temporary for the
// same reason.
func (b *builder) marshalerPlan(pl *plan) {
	t := pl.typ
	pt := reflect.PointerTo(t)
	// AppendBinary is preferred (it appends in place, MarshalBinary
	// allocates), and methods on the value receiver over those on *T.
	var appender, valueRecv bool
	switch {
	case t.Implements(appenderType):
		appender, valueRecv = true, true
	case t.Implements(marshalerType):
		valueRecv = true
	default:
		appender = pt.Implements(appenderType)
	}
	pl.minSize = 1
	pl.enc = func(buf []byte, p unsafe.Pointer) []byte {
		var x any
		if valueRecv {
			x = reflect.NewAt(t, p).Interface()
		} else {
			tmp := reflect.New(t)
			tmp.Elem().Set(reflect.NewAt(t, p).Elem())
			x = tmp.Interface()
		}
		if appender {
			return appendPrefixed(buf, x.(encoding.BinaryAppender))
		}
		data, err := x.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			// Append cannot fail. Write an encoding that Decode
			// rejects rather than a value that would silently
			// decode to something else.
			return appendInvalid(buf)
		}
		buf = binary.AppendUvarint(buf, uint64(len(data)))
		return append(buf, data...)
	}
	pl.dec = func(buf []byte, p unsafe.Pointer, _ int) (int, error) {
		l, n, err := decodeLen(buf, 1, math.MaxInt)
		if err != nil {
			return 0, err
		}
		tmp := reflect.New(t)
		if err := tmp.Interface().(encoding.BinaryUnmarshaler).UnmarshalBinary(buf[n : n+l]); err != nil {
			return 0, fmt.Errorf("%w: %v.UnmarshalBinary: %w", ErrCorrupt, t, err)
		}
		reflect.NewAt(t, p).Elem().Set(tmp.Elem())
		return n + l, nil
	}
}

// appendPrefixed appends a's encoding preceded by its length. The length is
// not known until AppendBinary returns, so the bytes are appended first and
// then moved up to make room for the length, which keeps this free of
// allocations when buf has capacity.
func appendPrefixed(buf []byte, a encoding.BinaryAppender) []byte {
	start := len(buf)
	out, err := a.AppendBinary(buf)
	if err != nil {
		return appendInvalid(buf[:start])
	}
	l := len(out) - start
	var lenBuf [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(lenBuf[:], uint64(l))
	out = append(out, lenBuf[:k]...)
	copy(out[start+k:], out[start:start+l])
	copy(out[start:], lenBuf[:k])
	return out
}

// appendInvalid appends a length no decoder accepts (uvarint 2^64-1, longer
// than any input can be), used when a MarshalBinary fails inside Append,
// which has no error result.
func appendInvalid(buf []byte) []byte {
	return binary.AppendUvarint(buf, math.MaxUint64)
}
