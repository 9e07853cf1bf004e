package codec

import (
	"fmt"
	"reflect"
	"unsafe"
)

// BatchDecoder decodes many values of T and copies the strings and byte
// slices of all of them into one shared allocation per batch, instead of
// allocating once per string or []byte field as Codec.Decode does. Everything
// else about decoding is the same: the wire format, the checks, the errors,
// and decoded values never alias the input, so the input buffer may be
// recycled as soon as a call returns.
//
// A batch is what the caller decodes between two calls of Begin, typically
// the records of one network buffer or one block of a cache file:
//
//	d := codec.NewBatchDecoder(c)  // once, per goroutine
//	...
//	d.Begin(len(buf))              // per buffer: its strings fit in len(buf) bytes
//	for each record frame in buf {
//		v, n, err := d.Decode(frame)  // or d.DecodeInto(frame, &slab[i])
//		...
//	}
//
// or, for a buffer holding nothing but consecutive values,
//
//	slab, err = d.DecodeAll(slab[:0], buf)  // calls Begin itself
//
// Begin(size) makes the next allocation at least size bytes, so when size
// bounds the string and []byte bytes of the batch (the length of the input
// does) the batch costs at most one allocation for them; without Begin,
// strings go to allocations of a default size. Pointees, slices of other
// types and maps are allocated per value as by Decode.
//
// The price is retention: the strings of a batch share one backing array,
// which the garbage collector frees only when none of them is referenced. An
// operator that keeps one string of a record (a key in heap state, an
// element in a window) keeps the whole allocation alive. Callers whose
// values mostly outlive the batch should size batches small or decode with
// Decode instead. A byte slice from the arena has its capacity cut at its
// length, so appending to it reallocates rather than overwriting a
// neighbour.
//
// A BatchDecoder is not safe for concurrent use: each goroutine (a task's
// input, a cache reader) keeps its own. It implements Codec, encoding
// through a Slot, so it can stand in where a Slot is used.
type BatchDecoder[T any] struct {
	c  Codec[T]
	pl *plan // nil when c is not one of this package's codecs
	s  *Slot[T]
	v  *T // where Decode decodes to: a value passed by address escapes
	a  arena
}

var _ Codec[int] = (*BatchDecoder[int])(nil)

// defaultBatchSize is the arena size before the first Begin: what a
// network buffer holds.
const defaultBatchSize = 32 << 10

// NewBatchDecoder returns a BatchDecoder over c, normally the codec For
// returns. A Codec written by the user (registered or not) is used as it is,
// one Decode per value, with no sharing of allocations.
func NewBatchDecoder[T any](c Codec[T]) *BatchDecoder[T] {
	d := &BatchDecoder[T]{c: c, s: NewSlot(c), v: new(T), a: arena{size: defaultBatchSize}}
	switch pc := c.(type) {
	case planCodec[T]:
		d.pl = pc.pl
	default:
		// The specialized codecs of the predeclared types have plans
		// too, with the same encoding; a user's Codec does not.
		if fc := fastCodec[T](); fc != nil && reflect.TypeOf(fc) == reflect.TypeOf(c) {
			if pl, err := planFor(reflect.TypeFor[T]()); err == nil && pl.op != opFunc {
				d.pl = pl
			}
		}
	}
	return d
}

// Begin starts a batch: the strings and byte slices decoded from now on go
// to a new allocation of at least size bytes when the current one is full.
// The bytes left in the current allocation are still used first.
func (d *BatchDecoder[T]) Begin(size int) { d.a.reserve(max(size, 1)) }

// Append implements Codec: it encodes like the codec it was made from.
func (d *BatchDecoder[T]) Append(buf []byte, v T) []byte { return d.s.Append(buf, v) }

// Decode implements Codec: it decodes one value from the front of buf,
// with its strings in the batch's allocation.
func (d *BatchDecoder[T]) Decode(buf []byte) (T, int, error) {
	n, err := d.DecodeInto(buf, d.v)
	v := *d.v
	var zero T
	*d.v = zero // hold no reference to the value's memory
	return v, n, err
}

// DecodeInto decodes one value from the front of buf into *v, overwriting
// whatever *v held (a slab entry can be reused), and returns the bytes
// consumed. On error *v is left zero.
func (d *BatchDecoder[T]) DecodeInto(buf []byte, v *T) (int, error) {
	var zero T
	*v = zero
	if d.pl == nil {
		x, n, err := d.c.Decode(buf)
		if err != nil {
			return 0, err
		}
		*v = x
		return n, nil
	}
	n, err := decodeOp(buf, d.pl, unsafe.Pointer(v), 0, &d.a)
	if err != nil {
		*v = zero
		return 0, fmt.Errorf("decoding %v: %w", d.pl.typ, err)
	}
	return n, nil
}

// DecodeAll begins a batch of len(buf) bytes and decodes consecutive values
// until buf is used up, appending them to dst, whose backing array is reused
// when it has room. On error it returns dst with the values decoded before
// the bad one, and an error that says at which value and byte offset it was.
func (d *BatchDecoder[T]) DecodeAll(dst []T, buf []byte) ([]T, error) {
	d.Begin(len(buf))
	first := len(dst)
	for off := 0; off < len(buf); {
		dst = append(dst, *new(T))
		n, err := d.DecodeInto(buf[off:], &dst[len(dst)-1])
		if err == nil && n == 0 {
			err = fmt.Errorf("%w: a value of %v took no bytes, so %d bytes cannot be values of it", ErrCorrupt, reflect.TypeFor[T](), len(buf)-off)
		}
		if err != nil {
			dst = dst[:len(dst)-1]
			return dst, fmt.Errorf("value %d at byte %d of %d: %w", len(dst)-first, off, len(buf), err)
		}
		off += n
	}
	return dst, nil
}

// Shares reports whether the values the decoder decodes can hold strings or
// byte slices in the batch's shared allocation: whether T has any, reachable
// through its fields and elements, and its codec is one of this package's.
// When it reports false, DecodeInto costs what Slot.DecodeInto does and
// shares nothing.
func (d *BatchDecoder[T]) Shares() bool {
	return d.pl != nil && hasBytes(d.pl.typ, map[reflect.Type]bool{})
}

// hasBytes reports whether values of t can hold a string or a byte slice.
func hasBytes(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.String:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Uint8 || hasBytes(t.Elem(), seen)
	case reflect.Array, reflect.Pointer:
		return hasBytes(t.Elem(), seen)
	case reflect.Map:
		return hasBytes(t.Key(), seen) || hasBytes(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if hasBytes(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
