package codec

import (
	"encoding/binary"
	"unsafe"
)

// op selects how an instruction encodes. Scalars, strings and byte slices are
// handled inline by appendFlat and decodeFlat; every other plan is opFunc and
// carries its own enc and dec functions. Structs and short arrays are opFlat
// plans, which never appear in a program: their instructions are inlined
// into it (see inst).
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
	opFlat  // a struct or small array: only the plan's insts are used
)

// inst is one instruction of a plan's flat program: encode or decode the
// value of kind op stored off bytes after the base pointer. Every plan has a
// program (plan.insts): a scalar's is one instruction at offset 0, a
// container's is one opFunc instruction that calls the plan's enc or dec, and
// a struct's is the concatenation of its fields' programs, nested structs and
// small arrays flattened in at their offsets. A struct of scalars therefore
// encodes and decodes in one loop over a table, with a switch per field and
// no call per field.
type inst struct {
	op  op
	off uintptr
	pl  *plan // the plan whose enc or dec an opFunc instruction calls
}

// appendOp appends the encoding of the value of pl.typ stored at p.
func appendOp(buf []byte, pl *plan, p unsafe.Pointer) []byte {
	return appendInsts(buf, pl.insts, p)
}

// appendInsts runs the program insts on the value at base.
func appendInsts(buf []byte, insts []inst, base unsafe.Pointer) []byte {
	for {
		var k int
		buf, k = appendFlat(buf, insts, base)
		if k == len(insts) {
			return buf
		}
		in := &insts[k]
		buf = in.pl.enc(buf, unsafe.Add(base, in.off))
		insts = insts[k+1:]
	}
}

// appendFlat runs insts on the value at base up to the first opFunc
// instruction, and returns the extended buffer and how many instructions it
// ran. It calls no function value, so base does not escape: a caller whose
// program has no opFunc instruction (see isFlat) can encode a value on its
// own stack.
func appendFlat(buf []byte, insts []inst, base unsafe.Pointer) ([]byte, int) {
	for i := range insts {
		in := &insts[i]
		p := unsafe.Add(base, in.off)
		switch in.op {
		case opBool:
			buf = appendBool(buf, *(*bool)(p))
		case opInt:
			buf = binary.AppendVarint(buf, int64(*(*int)(p)))
		case opInt8, opUint8:
			buf = append(buf, *(*byte)(p))
		case opInt16:
			buf = binary.AppendVarint(buf, int64(*(*int16)(p)))
		case opInt32:
			buf = binary.AppendVarint(buf, int64(*(*int32)(p)))
		case opInt64:
			buf = binary.AppendVarint(buf, *(*int64)(p))
		case opUint:
			buf = binary.AppendUvarint(buf, uint64(*(*uint)(p)))
		case opUint16:
			buf = binary.AppendUvarint(buf, uint64(*(*uint16)(p)))
		case opUint32:
			buf = binary.AppendUvarint(buf, uint64(*(*uint32)(p)))
		case opUint64:
			buf = binary.AppendUvarint(buf, *(*uint64)(p))
		case opFloat32:
			buf = appendFloat32(buf, *(*float32)(p))
		case opFloat64:
			buf = appendFloat64(buf, *(*float64)(p))
		case opComplex64:
			c := (*[2]float32)(p)
			buf = appendFloat32(appendFloat32(buf, c[0]), c[1])
		case opComplex128:
			c := (*[2]float64)(p)
			buf = appendFloat64(appendFloat64(buf, c[0]), c[1])
		case opString:
			buf = appendString(buf, *(*string)(p))
		case opBytes:
			buf = appendBytes(buf, *(*[]byte)(p))
		default:
			return buf, i
		}
	}
	return buf, len(insts)
}

// isFlat reports whether insts has no opFunc instruction: whether it can
// run entirely in appendFlat and decodeFlat.
func isFlat(insts []inst) bool {
	for _, in := range insts {
		if in.op == opFunc {
			return false
		}
	}
	return true
}

// decodeOp decodes one value of pl.typ from the front of buf into p, which
// points at zeroed memory of that type, and returns the bytes consumed. depth
// counts the pointers, slices and maps already entered (see maxDepth). a,
// when not nil, is where decoded strings and byte slices are copied to.
func decodeOp(buf []byte, pl *plan, p unsafe.Pointer, depth int, a *arena) (int, error) {
	return decodeInsts(buf, pl.insts, p, depth, a)
}

// decodeInsts runs the program insts to decode from the front of buf into
// the value at base, and returns the bytes consumed.
func decodeInsts(buf []byte, insts []inst, base unsafe.Pointer, depth int, a *arena) (int, error) {
	n := 0
	for {
		m, k, err := decodeFlat(buf[n:], insts, base, a)
		if err != nil {
			return 0, err
		}
		n += m
		if k == len(insts) {
			return n, nil
		}
		in := &insts[k]
		m, err = in.pl.dec(buf[n:], unsafe.Add(base, in.off), depth, a)
		if err != nil {
			return 0, err
		}
		n += m
		insts = insts[k+1:]
	}
}

// decodeFlat runs insts up to the first opFunc instruction, decoding from
// the front of buf into the value at base, and returns the bytes consumed
// and how many instructions it ran. Like appendFlat it lets neither base nor
// a escape.
//
// The varint cases call binary.Uvarint directly rather than the decodeX
// helpers: it inlines, and this is the inner loop of every struct.
func decodeFlat(buf []byte, insts []inst, base unsafe.Pointer, a *arena) (n, ran int, err error) {
	for i := range insts {
		in := &insts[i]
		p := unsafe.Add(base, in.off)
		switch in.op {
		case opBool:
			if n >= len(buf) {
				return 0, 0, errTruncated
			}
			switch buf[n] {
			case 0:
				*(*bool)(p) = false
			case 1:
				*(*bool)(p) = true
			default:
				return 0, 0, errBool
			}
			n++
		case opInt8, opUint8:
			if n >= len(buf) {
				return 0, 0, errTruncated
			}
			*(*byte)(p) = buf[n]
			n++
		case opInt, opInt16, opInt32, opInt64:
			ux, k := binary.Uvarint(buf[n:])
			if k <= 0 {
				return 0, 0, varintErr(k)
			}
			n += k
			x := unzigzag(ux)
			switch in.op {
			case opInt64:
				*(*int64)(p) = x
			case opInt:
				if !fitsInt(x, intBits) {
					return 0, 0, errRange
				}
				*(*int)(p) = int(x)
			case opInt32:
				if !fitsInt(x, 32) {
					return 0, 0, errRange
				}
				*(*int32)(p) = int32(x)
			default:
				if !fitsInt(x, 16) {
					return 0, 0, errRange
				}
				*(*int16)(p) = int16(x)
			}
		case opUint, opUint16, opUint32, opUint64:
			x, k := binary.Uvarint(buf[n:])
			if k <= 0 {
				return 0, 0, varintErr(k)
			}
			n += k
			switch in.op {
			case opUint64:
				*(*uint64)(p) = x
			case opUint:
				if !fitsUint(x, intBits) {
					return 0, 0, errRange
				}
				*(*uint)(p) = uint(x)
			case opUint32:
				if !fitsUint(x, 32) {
					return 0, 0, errRange
				}
				*(*uint32)(p) = uint32(x)
			default:
				if !fitsUint(x, 16) {
					return 0, 0, errRange
				}
				*(*uint16)(p) = uint16(x)
			}
		case opFloat32:
			if len(buf)-n < 4 {
				return 0, 0, errTruncated
			}
			*(*uint32)(p) = binary.LittleEndian.Uint32(buf[n:])
			n += 4
		case opFloat64:
			if len(buf)-n < 8 {
				return 0, 0, errTruncated
			}
			*(*uint64)(p) = binary.LittleEndian.Uint64(buf[n:])
			n += 8
		case opComplex64:
			if len(buf)-n < 8 {
				return 0, 0, errTruncated
			}
			c := (*[2]uint32)(p)
			c[0] = binary.LittleEndian.Uint32(buf[n:])
			c[1] = binary.LittleEndian.Uint32(buf[n+4:])
			n += 8
		case opComplex128:
			if len(buf)-n < 16 {
				return 0, 0, errTruncated
			}
			c := (*[2]uint64)(p)
			c[0] = binary.LittleEndian.Uint64(buf[n:])
			c[1] = binary.LittleEndian.Uint64(buf[n+8:])
			n += 16
		case opString:
			l, k := binary.Uvarint(buf[n:])
			if k <= 0 || l > uint64(len(buf)-n-k) {
				return 0, 0, lengthErr(k)
			}
			n += k
			*(*string)(p) = a.string(buf[n : n+int(l)])
			n += int(l)
		case opBytes:
			// The element type may be a named 1-byte integer; its
			// memory layout is that of []byte either way.
			v, k, err := decodeBytes(buf[n:], a)
			if err != nil {
				return 0, 0, err
			}
			*(*[]byte)(p) = v
			n += k
		default:
			return n, i, nil
		}
	}
	return n, len(insts), nil
}
