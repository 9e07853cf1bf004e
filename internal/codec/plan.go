package codec

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"unsafe"
)

// A plan is the compiled codec of one reflect.Type: it is built once per
// type, is immutable afterwards, and works on unsafe.Pointers to values of
// that type, so that encoding and decoding scalars, strings and structs of
// them make no reflect calls. The exceptions are allocating what a decoded
// value points to (slices, pointees), maps, and BinaryMarshaler methods.
type plan struct {
	typ reflect.Type
	op  op

	// minSize is the fewest bytes any encoding of the type takes. A
	// decoder uses it to refuse a length claim that the remaining input
	// could not hold, before allocating for it.
	minSize int

	// empty is set when the type encodes to nothing (structs with no
	// non-blank, non-empty fields; zero-length arrays). Loops over such
	// elements are skipped.
	empty bool

	// insts is the plan's program (see inst): what appendOp and
	// decodeOp run.
	insts []inst

	// enc and dec implement op == opFunc. dec writes into zeroed memory
	// and copies strings and byte slices into a when it is not nil.
	enc func(buf []byte, p unsafe.Pointer) []byte
	dec func(buf []byte, p unsafe.Pointer, depth int, a *arena) (int, error)
}

// planEntry is what the plan cache holds for a type: a plan or the reason
// there is none.
type planEntry struct {
	pl  *plan
	err error
}

var (
	// mu serializes building plans and Register, so that a plan is never
	// built from a registry that is changing under it. Lookups of built
	// plans and codecs go through the sync.Maps without it.
	mu sync.Mutex
	// plans caches planEntry by reflect.Type.
	plans sync.Map
	// codecs caches the Codec[T] that For returns, by reflect.Type of T.
	codecs sync.Map
)

// planFor returns the plan for t, building and caching it on first use.
func planFor(t reflect.Type) (*plan, error) {
	if e, ok := plans.Load(t); ok {
		return e.(planEntry).pl, e.(planEntry).err
	}
	mu.Lock()
	defer mu.Unlock()
	return planForLocked(t)
}

// planForLocked is planFor with mu held.
func planForLocked(t reflect.Type) (*plan, error) {
	if e, ok := plans.Load(t); ok {
		return e.(planEntry).pl, e.(planEntry).err
	}
	b := &builder{top: t, building: map[reflect.Type]*plan{}}
	pl, err := b.plan(t)
	if err != nil {
		plans.Store(t, planEntry{err: err})
		return nil, err
	}
	// Publish every plan the build completed, not just the top one:
	// the types of fields are often asked for on their own later.
	for bt, bp := range b.building {
		plans.Store(bt, planEntry{pl: bp})
	}
	plans.Store(t, planEntry{pl: pl}) // t may be registered, so not in building
	return pl, nil
}

// builder builds the plans of one top-level type. building holds the plans
// started so far, which is how recursive types terminate: a type met again
// below itself (only possible through a pointer, slice or map) gets the plan
// under construction, whose fields are filled in by the time it is used.
type builder struct {
	top      reflect.Type
	building map[reflect.Type]*plan
	path     []string // segments from top to the type being built
}

// plan returns the plan for t, reusing registered, cached and in-progress
// plans.
func (b *builder) plan(t reflect.Type) (*plan, error) {
	if r, ok := registry[t]; ok {
		return r.pl, nil
	}
	if pl, ok := b.building[t]; ok {
		return pl, nil
	}
	// Only successes are taken from the cache: a cached failure was
	// worded for the type it was asked about, not for this path.
	if e, ok := plans.Load(t); ok && e.(planEntry).err == nil {
		return e.(planEntry).pl, nil
	}
	pl := &plan{typ: t}
	b.building[t] = pl
	if err := b.fill(pl); err != nil {
		return nil, err
	}
	if pl.insts == nil {
		pl.insts = []inst{{op: pl.op, pl: pl}}
	}
	return pl, nil
}

// sub builds the plan of a component of the current type, recording seg in
// the path for error messages.
func (b *builder) sub(seg string, t reflect.Type) (*plan, error) {
	b.path = append(b.path, seg)
	pl, err := b.plan(t)
	b.path = b.path[:len(b.path)-1]
	return pl, err
}

// scalarOps maps the scalar kinds to their inline op and minimum size.
var scalarOps = map[reflect.Kind]struct {
	op      op
	minSize int
}{
	reflect.Bool: {opBool, 1}, reflect.Int: {opInt, 1}, reflect.Int8: {opInt8, 1},
	reflect.Int16: {opInt16, 1}, reflect.Int32: {opInt32, 1}, reflect.Int64: {opInt64, 1},
	reflect.Uint: {opUint, 1}, reflect.Uint8: {opUint8, 1}, reflect.Uint16: {opUint16, 1},
	reflect.Uint32: {opUint32, 1}, reflect.Uint64: {opUint64, 1},
	reflect.Float32: {opFloat32, 4}, reflect.Float64: {opFloat64, 8},
	reflect.Complex64: {opComplex64, 8}, reflect.Complex128: {opComplex128, 16},
	reflect.String: {opString, 1},
}

// fill completes pl for pl.typ or explains why the type has no codec.
func (b *builder) fill(pl *plan) error {
	t := pl.typ
	if m := marshalMethods(t); m.ok {
		b.marshalerPlan(pl, m)
		return nil
	}
	if s, ok := scalarOps[t.Kind()]; ok {
		pl.op, pl.minSize = s.op, s.minSize
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return b.pointerPlan(pl)
	case reflect.Slice:
		return b.slicePlan(pl)
	case reflect.Array:
		return b.arrayPlan(pl)
	case reflect.Map:
		return b.mapPlan(pl)
	case reflect.Struct:
		return b.structPlan(pl)
	case reflect.Chan:
		return b.fail(t, "channels cannot be encoded")
	case reflect.Func:
		return b.fail(t, "functions cannot be encoded")
	case reflect.Interface:
		return b.fail(t, "an interface type needs a codec registered with codec.Register")
	case reflect.Uintptr:
		return b.fail(t, "a uintptr holds an address, which means nothing in another process")
	case reflect.UnsafePointer:
		return b.fail(t, "an unsafe.Pointer is an address, which means nothing in another process")
	}
	return b.fail(t, "unsupported kind "+t.Kind().String())
}

// fail returns the ErrNoCodec error for bad, met at the current path.
func (b *builder) fail(bad reflect.Type, reason string) error {
	if len(b.path) == 0 {
		return fmt.Errorf("%w %v: %s", ErrNoCodec, b.top, reason)
	}
	return fmt.Errorf("%w %v: %s: %v: %s", ErrNoCodec, b.top, describePath(b.top, b.path), bad, reason)
}

// describePath renders a path such as "field Order.Items[].Tags" for an
// error message.
func describePath(top reflect.Type, segs []string) string {
	root := top.Name()
	if root == "" {
		root = "value"
	}
	p := root + strings.Join(segs, "")
	for _, s := range segs {
		if strings.HasPrefix(s, ".") {
			return "field " + p
		}
	}
	return "element " + p
}

// addSize and mulSize compute minimum sizes, saturating instead of
// overflowing for absurd array types.
func addSize(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

func mulSize(a, n int) int {
	if n != 0 && a > math.MaxInt/n {
		return math.MaxInt
	}
	return a * n
}

// maxCount bounds the length a decoder accepts for a slice or map whose
// elements take elemMin bytes at least and elemSize bytes in memory. When
// elements encode to nothing the input cannot bound the count, so the memory
// a corrupt length could make the decoder allocate is capped instead.
func maxCount(elemMin int, elemSize uintptr) int {
	const maxEmptyBytes = 64 << 20
	switch {
	case elemMin > 0:
		return math.MaxInt
	case elemSize == 0:
		return math.MaxInt32
	}
	return int(maxEmptyBytes / elemSize)
}
