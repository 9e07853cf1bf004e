package weir

import (
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator"
	"github.com/weir-engine/weir/internal/state"
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
	hash, err := codec.KeyHasher[K]()
	if err != nil {
		return KeyedStream[K, T]{DataStream: invalid[T](s.env, fmt.Errorf("weir: KeyBy: %w", err))}
	}
	p := derive[T](s.env, &graph.Transformation{
		Kind: graph.KindPartition, Name: "keyBy", Inputs: []*graph.Transformation{s.t}, OutType: s.t.OutType,
		Partitioner: graph.Partitioner{Kind: graph.Hash, KeyHash: func(v T) uint32 { return hash(key(v)) }},
	})
	return KeyedStream[K, T]{DataStream: p, key: key, hash: hash}
}

// newKeyedOperator records an operator on a keyed stream.
func newKeyedOperator[K comparable, T, R any](ks KeyedStream[K, T], name string, factory graph.Factory) DataStream[R] {
	return derive[R](ks.env, &graph.Transformation{
		Kind: graph.KindOperator, Name: name, Inputs: []*graph.Transformation{ks.t},
		OutType: typeinfo.New[R](), Factory: factory, Keyed: true,
	})
}

// Reduce combines the elements of each key with f and emits the running
// result after every element (Flink's rolling reduce).
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
		r := &reduceOp[K, T]{fn: fn.Reduce, key: ks.key, out: out.(op.Output[T]), UDF: operator.UDF{Hooks: udf{fn, acc}}}
		r.SetHash(ks.hash)
		return r, nil
	})
}

type reduceOp[K comparable, T any] struct {
	operator.UDF
	keyed.Runtime[K, struct{}]
	fn    func(a, b T) (T, error)
	key   func(T) K
	out   op.Output[T]
	state *state.ValueState[K, T]
}

func (r *reduceOp[K, T]) Open(ctx *op.Context) error {
	if err := r.OpenState(ctx); err != nil {
		return err
	}
	var err error
	if r.state, err = state.Value[K, T](r.Backend(), "reduce"); err != nil {
		return err
	}
	return r.UDF.Open(ctx)
}

// Close closes the function and releases the state.
func (r *reduceOp[K, T]) Close() error {
	return errors.Join(r.UDF.Close(), r.CloseState())
}

func (r *reduceOp[K, T]) ProcessElement(ts int64, v T) error {
	r.SetKey(r.key(v))
	if cur, ok := r.state.Value(); ok {
		var err error
		if v, err = r.fn(cur, v); err != nil {
			return err
		}
	}
	r.state.Update(v)
	if err := r.Backend().Err(); err != nil {
		return err
	}
	return r.out.Collect(ts, v)
}

// TimeDomain says which clock fired a timer.
type TimeDomain = keyed.TimeDomain

const (
	// EventTime timers fire when the watermark passes them.
	EventTime = keyed.EventTime
	// ProcessingTime timers fire when the wall clock passes them.
	ProcessingTime = keyed.ProcessingTime
)

// Every keyed operator hears of completed checkpoints (incremental state)
// and releases its backend when closed.
var (
	_ op.CheckpointListener = (*reduceOp[int, int])(nil)
	_ op.CheckpointListener = (*processInput[int, int, int])(nil)
	_ op.CheckpointListener = (*windowOp[int, int, int, int])(nil)
	_ op.CheckpointListener = (*coProcessOp[int, int, int, int])(nil)
)
