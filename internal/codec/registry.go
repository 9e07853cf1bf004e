package codec

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// registration is a user codec and the plan that embeds it in the plans of
// other types.
type registration struct {
	codec any // a Codec[T]
	pl    *plan
}

// registry holds the registered codecs by type. Guarded by mu.
var registry = map[reflect.Type]registration{}

// Register makes c the codec of T. It takes precedence over everything else,
// including the specialized codecs of predeclared types and BinaryMarshaler
// methods, both for For[T] and wherever T appears inside another type (a
// field, an element, a map key, a pointee). A nil c removes the
// registration.
//
// Register before the codecs of types that contain T are first asked for,
// typically from an init function: Register drops the cached codecs, but a
// Codec already returned by For keeps the plan it was built with.
//
// Registering is how an interface type gets a codec. c must be safe for
// concurrent use. Decoders bound lengths by assuming that every value of T
// encodes to at least one byte, so a codec that writes nothing may be
// refused inside long slices.
func Register[T any](c Codec[T]) {
	t := reflect.TypeFor[T]()
	mu.Lock()
	defer mu.Unlock()
	if c == nil {
		delete(registry, t)
	} else {
		registry[t] = registration{codec: c, pl: registeredPlan(t, c)}
	}
	plans.Clear()
	codecs.Clear()
}

// registeredPlan wraps c as a plan, checking what it returns: a user codec
// must not be able to make a decoder slice out of range.
func registeredPlan[T any](t reflect.Type, c Codec[T]) *plan {
	pl := &plan{
		typ:     t,
		op:      opFunc,
		minSize: 1,
		enc: func(buf []byte, p unsafe.Pointer) []byte {
			return c.Append(buf, *(*T)(p))
		},
		dec: func(buf []byte, p unsafe.Pointer, _ int, _ *arena) (int, error) {
			v, n, err := c.Decode(buf)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					err = fmt.Errorf("%w: registered codec of %v: %w", ErrCorrupt, t, err)
				}
				return 0, err
			}
			if n < 0 || n > len(buf) {
				return 0, fmt.Errorf("%w: registered codec of %v consumed %d of %d bytes", ErrCorrupt, t, n, len(buf))
			}
			*(*T)(p) = v
			return n, nil
		},
	}
	pl.insts = []inst{{op: opFunc, pl: pl}}
	return pl
}
