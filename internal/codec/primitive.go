package codec

import "encoding/binary"

// Specialized codecs for the predeclared scalar types, string and []byte.
// For returns these instead of the reflective codec: they are plain method
// calls on an empty struct, with no unsafe.Pointer and no plan to walk.

// fastCodec returns the specialized codec for T, or nil when T is not one of
// the exactly-predeclared types handled here (named types such as
// `type ID int64` go through the plan builder, which honours their methods).
func fastCodec[T any]() Codec[T] {
	var c any
	switch any(*new(T)).(type) {
	case bool:
		c = boolCodec{}
	case int:
		c = intCodec{}
	case int8:
		c = int8Codec{}
	case int16:
		c = int16Codec{}
	case int32:
		c = int32Codec{}
	case int64:
		c = int64Codec{}
	case uint:
		c = uintCodec{}
	case uint8:
		c = uint8Codec{}
	case uint16:
		c = uint16Codec{}
	case uint32:
		c = uint32Codec{}
	case uint64:
		c = uint64Codec{}
	case float32:
		c = float32Codec{}
	case float64:
		c = float64Codec{}
	case complex64:
		c = complex64Codec{}
	case complex128:
		c = complex128Codec{}
	case string:
		c = stringCodec{}
	case []byte:
		c = bytesCodec{}
	default:
		return nil
	}
	return c.(Codec[T])
}

type boolCodec struct{}

func (boolCodec) Append(buf []byte, v bool) []byte {
	return appendBool(buf, v)
}

func (boolCodec) Decode(buf []byte) (bool, int, error) {
	return decodeBool(buf)
}

type intCodec struct{}

func (intCodec) Append(buf []byte, v int) []byte {
	return binary.AppendVarint(buf, int64(v))
}

func (intCodec) Decode(buf []byte) (int, int, error) {
	v, n, err := decodeIntN(buf, intBits)
	return int(v), n, err
}

type int8Codec struct{}

func (int8Codec) Append(buf []byte, v int8) []byte {
	return append(buf, byte(v))
}

func (int8Codec) Decode(buf []byte) (int8, int, error) {
	b, n, err := decodeByte(buf)
	return int8(b), n, err
}

type int16Codec struct{}

func (int16Codec) Append(buf []byte, v int16) []byte {
	return binary.AppendVarint(buf, int64(v))
}

func (int16Codec) Decode(buf []byte) (int16, int, error) {
	v, n, err := decodeIntN(buf, 16)
	return int16(v), n, err
}

type int32Codec struct{}

func (int32Codec) Append(buf []byte, v int32) []byte {
	return binary.AppendVarint(buf, int64(v))
}

func (int32Codec) Decode(buf []byte) (int32, int, error) {
	v, n, err := decodeIntN(buf, 32)
	return int32(v), n, err
}

type int64Codec struct{}

func (int64Codec) Append(buf []byte, v int64) []byte {
	return binary.AppendVarint(buf, v)
}

func (int64Codec) Decode(buf []byte) (int64, int, error) {
	return decodeVarint(buf)
}

type uintCodec struct{}

func (uintCodec) Append(buf []byte, v uint) []byte {
	return binary.AppendUvarint(buf, uint64(v))
}

func (uintCodec) Decode(buf []byte) (uint, int, error) {
	v, n, err := decodeUintN(buf, intBits)
	return uint(v), n, err
}

type uint8Codec struct{}

func (uint8Codec) Append(buf []byte, v uint8) []byte {
	return append(buf, v)
}

func (uint8Codec) Decode(buf []byte) (uint8, int, error) {
	return decodeByte(buf)
}

type uint16Codec struct{}

func (uint16Codec) Append(buf []byte, v uint16) []byte {
	return binary.AppendUvarint(buf, uint64(v))
}

func (uint16Codec) Decode(buf []byte) (uint16, int, error) {
	v, n, err := decodeUintN(buf, 16)
	return uint16(v), n, err
}

type uint32Codec struct{}

func (uint32Codec) Append(buf []byte, v uint32) []byte {
	return binary.AppendUvarint(buf, uint64(v))
}

func (uint32Codec) Decode(buf []byte) (uint32, int, error) {
	v, n, err := decodeUintN(buf, 32)
	return uint32(v), n, err
}

type uint64Codec struct{}

func (uint64Codec) Append(buf []byte, v uint64) []byte {
	return binary.AppendUvarint(buf, v)
}

func (uint64Codec) Decode(buf []byte) (uint64, int, error) {
	return decodeUvarint(buf)
}

type float32Codec struct{}

func (float32Codec) Append(buf []byte, v float32) []byte {
	return appendFloat32(buf, v)
}

func (float32Codec) Decode(buf []byte) (float32, int, error) {
	return decodeFloat32(buf)
}

type float64Codec struct{}

func (float64Codec) Append(buf []byte, v float64) []byte {
	return appendFloat64(buf, v)
}

func (float64Codec) Decode(buf []byte) (float64, int, error) {
	return decodeFloat64(buf)
}

type complex64Codec struct{}

func (complex64Codec) Append(buf []byte, v complex64) []byte {
	return appendFloat32(appendFloat32(buf, real(v)), imag(v))
}

func (complex64Codec) Decode(buf []byte) (complex64, int, error) {
	if len(buf) < 8 {
		return 0, 0, errTruncated
	}
	re, _, _ := decodeFloat32(buf)
	im, _, _ := decodeFloat32(buf[4:])
	return complex(re, im), 8, nil
}

type complex128Codec struct{}

func (complex128Codec) Append(buf []byte, v complex128) []byte {
	return appendFloat64(appendFloat64(buf, real(v)), imag(v))
}

func (complex128Codec) Decode(buf []byte) (complex128, int, error) {
	if len(buf) < 16 {
		return 0, 0, errTruncated
	}
	re, _, _ := decodeFloat64(buf)
	im, _, _ := decodeFloat64(buf[8:])
	return complex(re, im), 16, nil
}

type stringCodec struct{}

func (stringCodec) Append(buf []byte, v string) []byte {
	return appendString(buf, v)
}

func (stringCodec) Decode(buf []byte) (string, int, error) {
	return decodeString(buf)
}

type bytesCodec struct{}

func (bytesCodec) Append(buf []byte, v []byte) []byte {
	return appendBytes(buf, v)
}

func (bytesCodec) Decode(buf []byte) ([]byte, int, error) {
	return decodeBytes(buf, nil)
}

// intBits is the width of int and uint on this platform. Both are encoded as
// 64-bit varints, so the format does not depend on it; a 32-bit process
// refuses values that do not fit.
const intBits = 32 << (^uint(0) >> 63)
