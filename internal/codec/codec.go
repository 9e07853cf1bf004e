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
	return planCodec[T]{pl: pl}, nil
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
// Its value methods hand the plan a pointer to their argument or result, so
// that value lives on the heap: one allocation per call. Hiding the pointer
// from escape analysis to keep it on the stack is not safe (a stack that
// grows during the call moves the value and the hidden pointer goes stale:
// decoded values came back zero under -race), so the hot paths go through
// PointerCodec instead, usually by way of a Slot.
type planCodec[T any] struct {
	pl *plan
}

var _ PointerCodec[int] = planCodec[int]{}

// Append implements Codec.
func (c planCodec[T]) Append(buf []byte, v T) []byte { return c.AppendFrom(buf, &v) }

// Decode implements Codec.
func (c planCodec[T]) Decode(buf []byte) (T, int, error) {
	var v T
	n, err := c.DecodeInto(buf, &v)
	return v, n, err
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
		return 0, fmt.Errorf("decoding %v: %w", c.pl.typ, err)
	}
	return n, nil
}
