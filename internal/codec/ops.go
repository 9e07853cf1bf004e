package codec

import (
	"encoding/binary"
	"unsafe"
)

// op selects how a plan encodes. Scalars, strings and byte slices are handled
// inline by appendOp and decodeOp, so a struct of scalars costs a switch per
// field rather than an indirect call; every other plan is opFunc and carries
// its own enc and dec functions.
type op uint8

const (
	opFunc op = iota // call plan.enc / plan.dec
	opBool
	opInt
	opInt8
	opInt16
	opInt32
	opInt64
	opUint
	opUint8
	opUint16
	opUint32
	opUint64
	opFloat32
	opFloat64
	opComplex64
	opComplex128
	opString
	opBytes // a slice whose elements are 1-byte integers: copied in bulk
)

// appendOp appends the encoding of the value of pl.typ stored at p.
func appendOp(buf []byte, pl *plan, p unsafe.Pointer) []byte {
	switch pl.op {
	case opBool:
		return appendBool(buf, *(*bool)(p))
	case opInt:
		return binary.AppendVarint(buf, int64(*(*int)(p)))
	case opInt8, opUint8:
		return append(buf, *(*byte)(p))
	case opInt16:
		return binary.AppendVarint(buf, int64(*(*int16)(p)))
	case opInt32:
		return binary.AppendVarint(buf, int64(*(*int32)(p)))
	case opInt64:
		return binary.AppendVarint(buf, *(*int64)(p))
	case opUint:
		return binary.AppendUvarint(buf, uint64(*(*uint)(p)))
	case opUint16:
		return binary.AppendUvarint(buf, uint64(*(*uint16)(p)))
	case opUint32:
		return binary.AppendUvarint(buf, uint64(*(*uint32)(p)))
	case opUint64:
		return binary.AppendUvarint(buf, *(*uint64)(p))
	case opFloat32:
		return appendFloat32(buf, *(*float32)(p))
	case opFloat64:
		return appendFloat64(buf, *(*float64)(p))
	case opComplex64:
		c := (*[2]float32)(p)
		return appendFloat32(appendFloat32(buf, c[0]), c[1])
	case opComplex128:
		c := (*[2]float64)(p)
		return appendFloat64(appendFloat64(buf, c[0]), c[1])
	case opString:
		return appendString(buf, *(*string)(p))
	case opBytes:
		return appendBytes(buf, *(*[]byte)(p))
	}
	return pl.enc(buf, p)
}

// decodeOp decodes one value of pl.typ from the front of buf into p, which
// points at zeroed memory of that type, and returns the bytes consumed. depth
// counts the pointers, slices and maps already entered (see maxDepth).
//
// The varint cases call binary.Uvarint directly rather than the decodeX
// helpers: it inlines, and this is the inner loop of every struct.
func decodeOp(buf []byte, pl *plan, p unsafe.Pointer, depth int) (int, error) {
	switch pl.op {
	case opBool:
		v, n, err := decodeBool(buf)
		*(*bool)(p) = v
		return n, err
	case opInt8, opUint8:
		if len(buf) == 0 {
			return 0, errTruncated
		}
		*(*byte)(p) = buf[0]
		return 1, nil
	case opInt, opInt16, opInt32, opInt64:
		ux, n := binary.Uvarint(buf)
		if n <= 0 {
			return 0, varintErr(n)
		}
		x := unzigzag(ux)
		switch pl.op {
		case opInt64:
			*(*int64)(p) = x
		case opInt:
			if !fitsInt(x, intBits) {
				return 0, errRange
			}
			*(*int)(p) = int(x)
		case opInt32:
			if !fitsInt(x, 32) {
				return 0, errRange
			}
			*(*int32)(p) = int32(x)
		default:
			if !fitsInt(x, 16) {
				return 0, errRange
			}
			*(*int16)(p) = int16(x)
		}
		return n, nil
	case opUint, opUint16, opUint32, opUint64:
		x, n := binary.Uvarint(buf)
		if n <= 0 {
			return 0, varintErr(n)
		}
		switch pl.op {
		case opUint64:
			*(*uint64)(p) = x
		case opUint:
			if !fitsUint(x, intBits) {
				return 0, errRange
			}
			*(*uint)(p) = uint(x)
		case opUint32:
			if !fitsUint(x, 32) {
				return 0, errRange
			}
			*(*uint32)(p) = uint32(x)
		default:
			if !fitsUint(x, 16) {
				return 0, errRange
			}
			*(*uint16)(p) = uint16(x)
		}
		return n, nil
	case opFloat32:
		v, n, err := decodeFloat32(buf)
		*(*float32)(p) = v
		return n, err
	case opFloat64:
		v, n, err := decodeFloat64(buf)
		*(*float64)(p) = v
		return n, err
	case opComplex64:
		v, n, err := complex64Codec{}.Decode(buf)
		*(*complex64)(p) = v
		return n, err
	case opComplex128:
		v, n, err := complex128Codec{}.Decode(buf)
		*(*complex128)(p) = v
		return n, err
	case opString:
		l, n := binary.Uvarint(buf)
		if n <= 0 || l > uint64(len(buf)-n) {
			return 0, lengthErr(n)
		}
		*(*string)(p) = string(buf[n : n+int(l)])
		return n + int(l), nil
	case opBytes:
		// The element type may be a named 1-byte integer; its
		// memory layout is that of []byte either way.
		v, n, err := decodeBytes(buf)
		*(*[]byte)(p) = v
		return n, err
	}
	return pl.dec(buf, p, depth)
}
