package state

import (
	"fmt"
	"maps"
)

// register returns the state called name if it exists and has type S, creates
// it with mk if the name is new, and otherwise returns (and records) an
// ErrIncompatibleState. S is a pointer to one of the state types, instantiated
// with all of its type parameters, so a type assertion compares kind and types
// in one step. mk returns the new state and its table.
func register[K comparable, S any](b *KeyedBackend[K], name string, opts []Option, mk func() (S, registered[K])) (S, error) {
	if err := validOptions(opts); err != nil {
		var zero S
		return zero, b.record(fmt.Errorf("state %q: %w", name, err))
	}
	if existing, ok := b.states[name]; ok {
		s, ok := existing.state.(S)
		if !ok {
			var want S
			return want, b.record(fmt.Errorf("%w: %q is a %T, requested as %T",
				ErrIncompatibleState, name, existing.state, want))
		}
		return s, nil
	}
	s, t := mk()
	b.states[name] = entry[K]{state: s, table: t}
	if b.kv != nil {
		if err := b.migrateKV(name, t); err != nil {
			var zero S
			return zero, b.record(err)
		}
	}
	if err := b.adoptPending(name, t); err != nil {
		var zero S
		return zero, b.record(err)
	}
	return s, nil
}

// Value registers, or returns the already registered, value state called name.
func Value[K comparable, V any](b *KeyedBackend[K], name string, opts ...Option) (*ValueState[K, V], error) {
	return register(b, name, opts, func() (*ValueState[K, V], registered[K]) {
		s := &ValueState[K, V]{b: b}
		if b.kv == nil && describe(opts).ttl == nil {
			s.cells = newCellTable[K, V](b)
			s.t = s.cells
		} else {
			s.t = tableOf[K, V](b, name, nil, opts)
		}
		return s, s.t
	})
}

// List registers, or returns the already registered, list state called name.
func List[K comparable, V any](b *KeyedBackend[K], name string, opts ...Option) (*ListState[K, V], error) {
	return register(b, name, opts, func() (*ListState[K, V], registered[K]) {
		s := &ListState[K, V]{b: b, t: tableOf[K, []V](b, name, nil, opts)}
		return s, s.t
	})
}

// Map registers, or returns the already registered, map state called name,
// which maps each key to a map from UK to UV.
func Map[K comparable, UK comparable, UV any](b *KeyedBackend[K], name string, opts ...Option) (*MapState[K, UK, UV], error) {
	return register(b, name, opts, func() (*MapState[K, UK, UV], registered[K]) {
		s := &MapState[K, UK, UV]{b: b}
		if b.kv == nil && describe(opts).ttl == nil {
			s.cells = newMapCellTable[K, UK, UV](b)
			return s, s.cells
		}
		s.t = tableOf(b, name, maps.Clone[map[UK]UV], opts)
		return s, s.t
	})
}

// Reducing registers, or returns the already registered, reducing state called
// name. If the name is already registered with the same types, that state and
// its original reduce function are returned; reduce is ignored.
func Reducing[K comparable, V any](b *KeyedBackend[K], name string, reduce func(a, b V) (V, error), opts ...Option) (*ReducingState[K, V], error) {
	if reduce == nil {
		return nil, b.record(fmt.Errorf("%w: reduce of reducing state %q", ErrNilFunction, name))
	}
	return register(b, name, opts, func() (*ReducingState[K, V], registered[K]) {
		s := &ReducingState[K, V]{b: b, t: tableOf[K, V](b, name, nil, opts), reduce: reduce}
		return s, s.t
	})
}

// Aggregating registers, or returns the already registered, aggregating state
// called name. newAcc creates the accumulator of a key that has none, add folds
// an input into it, and result computes the output from it. If the name is
// already registered with the same types, that state and its original
// functions are returned; the functions passed are ignored.
func Aggregating[K comparable, IN, ACC, OUT any](
	b *KeyedBackend[K],
	name string,
	add func(acc ACC, in IN) (ACC, error),
	newAcc func() ACC,
	result func(ACC) (OUT, error),
	opts ...Option,
) (*AggregatingState[K, IN, ACC, OUT], error) {
	if add == nil || newAcc == nil || result == nil {
		return nil, b.record(fmt.Errorf("%w: add, newAcc and result of aggregating state %q", ErrNilFunction, name))
	}
	return register(b, name, opts, func() (*AggregatingState[K, IN, ACC, OUT], registered[K]) {
		s := &AggregatingState[K, IN, ACC, OUT]{
			b: b, t: tableOf[K, ACC](b, name, nil, opts),
			add: add, newAcc: newAcc, result: result,
		}
		return s, s.t
	})
}
