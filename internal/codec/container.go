package codec

import (
	"reflect"
	"unsafe"
)

// sliceHeader is the memory layout of every slice type.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// emptyBase is the data pointer of decoded empty, non-nil slices: like the
// runtime's zerobase it is never read or written through (capacity 0).
var emptyBase [1]byte

// pointerPlan encodes a pointer as a presence byte (0 nil, 1 present)
// followed by the pointee. Decoding allocates a new pointee, so shared
// pointers come back as copies and cyclic values cannot be encoded at all
// (see the package comment).
func (b *builder) pointerPlan(pl *plan) error {
	et := pl.typ.Elem()
	elem, err := b.sub("", et)
	if err != nil {
		return err
	}
	pl.minSize = 1
	pl.enc = func(buf []byte, p unsafe.Pointer) []byte {
		ptr := *(*unsafe.Pointer)(p)
		if ptr == nil {
			return append(buf, 0)
		}
		return appendOp(append(buf, 1), elem, ptr)
	}
	pl.dec = func(buf []byte, p unsafe.Pointer, depth int, a *arena) (int, error) {
		if len(buf) == 0 {
			return 0, errTruncated
		}
		switch buf[0] {
		case 0:
			*(*unsafe.Pointer)(p) = nil
			return 1, nil
		case 1:
		default:
			return 0, errPresence
		}
		if depth >= maxDepth {
			return 0, errDepth
		}
		ptr := reflect.New(et).UnsafePointer()
		n, err := decodeOp(buf[1:], elem, ptr, depth+1, a)
		if err != nil {
			return 0, err
		}
		*(*unsafe.Pointer)(p) = ptr
		return 1 + n, nil
	}
	return nil
}

// slicePlan encodes a slice as uvarint(len+1), or 0 for a nil slice, followed
// by the elements. Slices of 1-byte integers use opBytes instead.
func (b *builder) slicePlan(pl *plan) error {
	t := pl.typ
	elem, err := b.sub("[]", t.Elem())
	if err != nil {
		return err
	}
	pl.minSize = 1
	// elem may still be under construction (type T []T), but its kind
	// is known from the type.
	if k := t.Elem().Kind(); (k == reflect.Uint8 || k == reflect.Int8) && elem.op != opFunc {
		pl.op = opBytes
		return nil
	}
	size := t.Elem().Size()
	pl.enc = func(buf []byte, p unsafe.Pointer) []byte {
		h := (*sliceHeader)(p)
		buf = appendOptLen(buf, h.len, h.data == nil)
		if elem.empty {
			return buf
		}
		for i := range h.len {
			buf = appendOp(buf, elem, unsafe.Add(h.data, uintptr(i)*size))
		}
		return buf
	}
	pl.dec = func(buf []byte, p unsafe.Pointer, depth int, a *arena) (int, error) {
		l, isNil, n, err := decodeOptLen(buf, elem.minSize, maxCount(elem.minSize, size))
		switch {
		case err != nil:
			return 0, err
		case isNil:
			*(*sliceHeader)(p) = sliceHeader{}
			return n, nil
		case l == 0:
			*(*sliceHeader)(p) = sliceHeader{data: unsafe.Pointer(&emptyBase)}
			return n, nil
		case depth >= maxDepth:
			return 0, errDepth
		}
		// Grow on a Value made with NewAt allocates the backing array
		// and writes the header straight into *p; reflect.MakeSlice
		// would also heap-allocate a header.
		*(*sliceHeader)(p) = sliceHeader{}
		v := reflect.NewAt(t, p).Elem()
		v.Grow(l)
		v.SetLen(l)
		if elem.empty {
			return n, nil
		}
		data := (*sliceHeader)(p).data
		for i := range l {
			k, err := decodeOp(buf[n:], elem, unsafe.Add(data, uintptr(i)*size), depth+1, a)
			if err != nil {
				return 0, err
			}
			n += k
		}
		return n, nil
	}
	return nil
}

// maxFlatArray is the largest program an array is unrolled into; longer
// arrays loop over their elements.
const maxFlatArray = 64

// arrayPlan encodes an array as its elements, with no length: the length is
// part of the type. Arrays of 1-byte integers are copied in bulk, and short
// arrays of other elements are unrolled into a flat program like a struct's.
func (b *builder) arrayPlan(pl *plan) error {
	t := pl.typ
	elem, err := b.sub("[]", t.Elem())
	if err != nil {
		return err
	}
	l := t.Len()
	size := t.Elem().Size()
	pl.minSize = mulSize(elem.minSize, l)
	pl.empty = l == 0 || elem.empty
	if pl.empty {
		pl.enc = func(buf []byte, _ unsafe.Pointer) []byte { return buf }
		pl.dec = func([]byte, unsafe.Pointer, int, *arena) (int, error) { return 0, nil }
		return nil
	}
	if k := t.Elem().Kind(); (k == reflect.Uint8 || k == reflect.Int8) && elem.op != opFunc {
		pl.enc = func(buf []byte, p unsafe.Pointer) []byte {
			return append(buf, unsafe.Slice((*byte)(p), l)...)
		}
		pl.dec = func(buf []byte, p unsafe.Pointer, _ int, _ *arena) (int, error) {
			if len(buf) < l {
				return 0, errTruncated
			}
			return copy(unsafe.Slice((*byte)(p), l), buf), nil
		}
		return nil
	}
	if l <= maxFlatArray && l*len(elem.insts) <= maxFlatArray {
		insts := make([]inst, 0, l*len(elem.insts))
		for i := range l {
			insts = appendShifted(insts, partInsts(elem), uintptr(i)*size)
		}
		pl.op, pl.insts = opFlat, insts
		return nil
	}
	pl.enc = func(buf []byte, p unsafe.Pointer) []byte {
		for i := range l {
			buf = appendOp(buf, elem, unsafe.Add(p, uintptr(i)*size))
		}
		return buf
	}
	pl.dec = func(buf []byte, p unsafe.Pointer, depth int, a *arena) (int, error) {
		n := 0
		for i := range l {
			k, err := decodeOp(buf[n:], elem, unsafe.Add(p, uintptr(i)*size), depth, a)
			if err != nil {
				return 0, err
			}
			n += k
		}
		return n, nil
	}
	return nil
}
