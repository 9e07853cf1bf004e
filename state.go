package weir

import (
	"iter"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
)

// ValueState is one value per key. Accesses are for the key of the element
// or timer being processed.
//
// A checkpoint may still be writing a value after the function returns
// (the heap backend snapshots copy-on-write): do not change in place what
// a value read from state refers to (a pointer's target, a slice's
// elements, a map); build a new value and Update it.
type ValueState[V any] interface {
	// Value returns the value and whether there is one.
	Value() (V, bool)
	Update(v V)
	Clear()
}

// ListState is a list per key.
type ListState[V any] interface {
	// Get returns the list; it is a read-only view valid until the next
	// write.
	Get() []V
	Add(v V)
	AddAll(vs []V)
	Update(vs []V)
	Clear()
}

// MapState is a map per key.
type MapState[UK comparable, UV any] interface {
	Get(k UK) (UV, bool)
	Put(k UK, v UV)
	Remove(k UK)
	Contains(k UK) bool
	All() iter.Seq2[UK, UV]
	Keys() iter.Seq[UK]
	IsEmpty() bool
	Clear()
}

// KeyedRuntimeContext is the RuntimeContext of a function on a keyed
// stream; keyed state is registered through it, usually in Open.
type KeyedRuntimeContext[K comparable] struct {
	*RuntimeContext
	backend *state.KeyedBackend[K]
}

// KeyedOpener is implemented by keyed functions that register state: Open
// is called before the first element with the keyed runtime context.
type KeyedOpener[K comparable] interface {
	Open(rc *KeyedRuntimeContext[K]) error
}

// keyedUDF drives the lifecycle hooks of a keyed user function: it is the
// keyedop.Hooks of the operator that runs it, and opens a KeyedOpener with
// its KeyedRuntimeContext.
type keyedUDF[K comparable] struct{ udf }

// Open calls the function's Open, if it has one.
func (u keyedUDF[K]) Open(ctx *op.Context, backend *state.KeyedBackend[K]) error {
	rc := newRuntimeContext(ctx, u.acc)
	switch o := u.fn.(type) {
	case KeyedOpener[K]:
		return o.Open(&KeyedRuntimeContext[K]{RuntimeContext: rc, backend: backend})
	case Opener:
		return o.Open(rc)
	}
	return nil
}

// GetValueState returns the value state called name, registering it on
// first use. Registering the same name with another type is an error.
func GetValueState[V any, K comparable](rc *KeyedRuntimeContext[K], name string, opts ...StateOption) (ValueState[V], error) {
	return state.Value[K, V](rc.backend, name, opts...)
}

// GetListState returns the list state called name.
func GetListState[V any, K comparable](rc *KeyedRuntimeContext[K], name string, opts ...StateOption) (ListState[V], error) {
	return state.List[K, V](rc.backend, name, opts...)
}

// GetMapState returns the map state called name.
func GetMapState[UK comparable, UV any, K comparable](rc *KeyedRuntimeContext[K], name string, opts ...StateOption) (MapState[UK, UV], error) {
	return state.Map[K, UK, UV](rc.backend, name, opts...)
}
