package weir

import (
	"fmt"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/keyedop"
	"github.com/weir-engine/weir/internal/state/keyed"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// KeyedStream is a stream partitioned by a key of type K: all elements with
// the same key go to the same subtask of the next operator, which can keep
// state and timers per key.
type KeyedStream[K comparable, T any] struct {
	DataStream[T]
	key  func(T) K
	hash func(K) uint32
	// hasher is hash for keyed operators that take a keygroup.Hasher.
	hasher keygroup.Hasher[K]
}

// KeyBy partitions s by key(v). K must be hashable deterministically:
// strings, numbers, bools, and arrays or structs of them (not pointers or
// interfaces, whose identity is not their value).
func KeyBy[T any, K comparable](s DataStream[T], key func(T) K) KeyedStream[K, T] {
	if key == nil {
		return KeyedStream[K, T]{DataStream: invalid[T](s.env, fmt.Errorf("weir: KeyBy: nil key selector"))}
	}
	if !s.ok() {
		return KeyedStream[K, T]{DataStream: invalid[T](s.env, fmt.Errorf("weir: KeyBy on an invalid stream"))}
	}
	h, err := keygroup.KeyHasher[K]()
	if err != nil {
		return KeyedStream[K, T]{DataStream: invalid[T](s.env, fmt.Errorf("weir: KeyBy: %w", err))}
	}
	p := derive[T](s.env, &graph.Transformation{
		Kind: graph.KindPartition, Name: "keyBy", Inputs: []*graph.Transformation{s.t}, OutType: s.t.OutType,
		Partitioner: graph.Partitioner{Kind: graph.Hash, KeyHash: func(v T) uint32 { return h.Hash(key(v)) }},
	})
	return KeyedStream[K, T]{DataStream: p, key: key, hash: h.Func(), hasher: h}
}

// newKeyedOperator records an operator on a keyed stream.
func newKeyedOperator[K comparable, T, R any](ks KeyedStream[K, T], name string, factory graph.Factory) DataStream[R] {
	return derive[R](ks.env, &graph.Transformation{
		Kind: graph.KindOperator, Name: name, Inputs: []*graph.Transformation{ks.t},
		OutType: typeinfo.New[R](), Factory: factory, Keyed: true,
		BatchFactory: batchFactory(ks, factory),
	})
}

// Reduce combines the elements of each key with f and emits the running
// result after every element (Flink's rolling reduce); in batch mode it
// emits only the final result of each key.
func Reduce[K comparable, T any](ks KeyedStream[K, T], f func(a, b T) (T, error)) DataStream[T] {
	if f == nil {
		return invalid[T](ks.env, fmt.Errorf("weir: Reduce: nil function"))
	}
	return ReduceWith(ks, ReduceFunction[T](reduceFunc[T](f)))
}

// ReduceWith is Reduce with a function value that may implement the hooks.
func ReduceWith[K comparable, T any](ks KeyedStream[K, T], fn ReduceFunction[T]) DataStream[T] {
	if err := checkFn(ks.DataStream, "Reduce", fn); err != nil {
		return invalid[T](ks.env, err)
	}
	acc := ks.env.accumulators
	return newKeyedOperator[K, T, T](ks, "Reduce", func(out any) (any, error) {
		fn := instance(fn)
		r := keyedop.NewReduce(fn.Reduce, ks.key, ks.hash, udf{fn, acc}, out.(op.Output[T]))
		r.SetHasher(ks.hasher)
		return r, nil
	})
}

// TimeDomain says which clock fired a timer.
type TimeDomain = keyed.TimeDomain

const (
	// EventTime timers fire when the watermark passes them.
	EventTime = keyed.EventTime
	// ProcessingTime timers fire when the wall clock passes them.
	ProcessingTime = keyed.ProcessingTime
)
