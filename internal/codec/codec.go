package codec

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// Codec encodes and decodes values of type T. Implementations must be safe
// for concurrent use (stateless or immutable).
type Codec[T any] interface {
	// Append appends the encoding of v to buf and returns the extended
	// buffer.
	Append(buf []byte, v T) []byte
	// Decode decodes one value from the front of buf and returns it with
	// the number of bytes consumed. A truncated or malformed buf gives an
	// error wrapping ErrCorrupt, never a panic. The value never aliases
	// buf.
	Decode(buf []byte) (T, int, error)
}

// ErrNoCodec is wrapped by the errors of For and Check for types that cannot
// be encoded; the message names the type, the path to the offending
// component and the reason.
var ErrNoCodec = errors.New("codec: no codec for type")

// ErrCorrupt is wrapped by every decoding error: the input is truncated or
// is not an encoding of the type.
var ErrCorrupt = errors.New("codec: corrupt data")

// For returns the codec of T: a registered one if there is one, a
// specialized one for the predeclared scalar types, string and []byte, and
// otherwise one compiled from T's structure. Codecs are built once per type
// and cached. For types that cannot be encoded the error wraps ErrNoCodec.
func For[T any]() (Codec[T], error) {
	t := reflect.TypeFor[T]()
	if c, ok := codecs.Load(t); ok {
		return c.(Codec[T]), nil
	}
	mu.Lock()
	defer mu.Unlock()
	if c, ok := codecs.Load(t); ok {
		return c.(Codec[T]), nil
	}
	c, err := forLocked[T](t)
	if err != nil {
		return nil, err
	}
	codecs.Store(t, c)
	return c, nil
}

// forLocked builds the codec of T with mu held.
func forLocked[T any](t reflect.Type) (Codec[T], error) {
	if r, ok := registry[t]; ok {
		return r.codec.(Codec[T]), nil
	}
	if c := fastCodec[T](); c != nil {
		return c, nil
	}
	pl, err := planForLocked(t)
	if err != nil {
		return nil, err
	}
	return planCodec[T]{pl: pl, flat: isFlat(pl.insts)}, nil
}

// Check reports whether values of t can be encoded, without building a typed
// codec; the graph builder calls it for every edge that crosses the network.
// The error wraps ErrNoCodec.
func Check(t reflect.Type) error {
	if t == nil {
		return fmt.Errorf("%w <nil>: no type given", ErrNoCodec)
	}
	_, err := planFor(t)
	return err
}

// planCodec is the Codec of a type compiled into a plan.
//
// When the plan's program is flat (scalars, strings, byte slices and structs
// and arrays of them: no pointer, other slice, map or marshaler), its value
// methods run it on their own argument or result, which stays on the stack
// because appendFlat and decodeFlat let no pointer escape. Otherwise they
// must hand the plan a heap copy of the value: one allocation per call.
// Hiding the pointer from escape analysis to keep it on the stack is not safe
// (a stack that grows during the call moves the value and the hidden pointer
// goes stale: decoded values came back zero under -race), so the hot paths
// go through PointerCodec instead, usually by way of a Slot. (A Slot is
// faster even for flat types: passing the value through the Codec interface
// and back measured slower than copying it into the Slot's heap value.)
type planCodec[T any] struct {
	pl   *plan
	flat bool // isFlat(pl.insts)
}

var _ PointerCodec[int] = planCodec[int]{}

// Append implements Codec.
func (c planCodec[T]) Append(buf []byte, v T) []byte {
	if c.flat {
		buf, _ = appendFlat(buf, c.pl.insts, unsafe.Pointer(&v))
		return buf
	}
	p := new(T) // not &v: taking it here would move v to the heap on every call
	*p = v
	return c.AppendFrom(buf, p)
}

// Decode implements Codec.
func (c planCodec[T]) Decode(buf []byte) (T, int, error) {
	if c.flat {
		var v T
		n, _, err := decodeFlat(buf, c.pl.insts, unsafe.Pointer(&v), nil)
		if err != nil {
			var zero T
			return zero, 0, c.decodeErr(err)
		}
		return v, n, nil
	}
	v := new(T)
	n, err := c.DecodeInto(buf, v)
	return *v, n, err
}

// AppendFrom implements PointerCodec.
func (c planCodec[T]) AppendFrom(buf []byte, v *T) []byte {
	return appendOp(buf, c.pl, unsafe.Pointer(v))
}

// DecodeInto implements PointerCodec.
func (c planCodec[T]) DecodeInto(buf []byte, v *T) (int, error) {
	n, err := decodeOp(buf, c.pl, unsafe.Pointer(v), 0, nil)
	if err != nil {
		var zero T
		*v = zero
		return 0, c.decodeErr(err)
	}
	return n, nil
}

// decodeErr is the error of decoding a T.
func (c planCodec[T]) decodeErr(err error) error {
	return fmt.Errorf("decoding %v: %w", c.pl.typ, err)
}
