package keyedop

import (
	"errors"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator"
	"github.com/weir-engine/weir/internal/state"
	"github.com/weir-engine/weir/internal/state/keyed"
)

// Reduce keeps the running result of a reduce function per key and emits
// it after every element (Flink's rolling reduce); in batch mode it emits
// only the final result of each key, and its function also combines a
// key's records before the sort (see Sorted).
type Reduce[K comparable, T any] struct {
	operator.UDF
	keyed.Runtime[K, struct{}]
	fn    func(a, b T) (T, error)
	key   func(T) K
	out   op.Output[T]
	state *state.ValueState[K, T]
	// lastTS is the timestamp of the key's last element (batch mode).
	lastTS int64
}

// NewReduce returns the reduce of fn over the elements of each key(v),
// hashed to key groups by hash, emitting to out; hooks may be nil.
func NewReduce[K comparable, T any](fn func(a, b T) (T, error), key func(T) K, hash func(K) uint32, hooks operator.Hooks, out op.Output[T]) *Reduce[K, T] {
	r := &Reduce[K, T]{fn: fn, key: key, out: out, UDF: operator.UDF{Hooks: hooks}}
	r.SetHash(hash)
	return r
}

// Open opens the state and then the function.
func (r *Reduce[K, T]) Open(ctx *op.Context) error {
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
func (r *Reduce[K, T]) Close() error {
	return errors.Join(r.UDF.Close(), r.CloseState())
}

// ProcessElement implements op.Input.
func (r *Reduce[K, T]) ProcessElement(ts int64, v T) error {
	return r.ProcessCombined(r.key(v), ts, v)
}

// CollectBatch implements op.BatchInput.
func (r *Reduce[K, T]) CollectBatch(ts []int64, vs []T) error {
	for i := range vs {
		if err := r.ProcessCombined(r.key(vs[i]), op.TimestampAt(ts, i), vs[i]); err != nil {
			return err
		}
	}
	return nil
}

// CollectKeyedBatch implements op.KeyedBatchInput.
func (r *Reduce[K, T]) CollectKeyedBatch(ts []int64, groups []uint16, vs []T) error {
	for i := range vs {
		r.SetKeyInGroup(r.key(vs[i]), int(groups[i]))
		if err := r.processCurrent(op.TimestampAt(ts, i), vs[i]); err != nil {
			return err
		}
	}
	return nil
}

// ProcessCombined processes v, an element or a partial result (batch
// mode's Sorted), of key k.
func (r *Reduce[K, T]) ProcessCombined(k K, ts int64, v T) error {
	r.SetKey(k)
	return r.processCurrent(ts, v)
}

// processCurrent processes v of the current key.
func (r *Reduce[K, T]) processCurrent(ts int64, v T) error {
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
	if r.Batch() {
		// The key's final result is emitted by EndKey.
		r.lastTS = ts
		return nil
	}
	return r.out.Collect(ts, v)
}

// Combine applies the reduce function to two results of a key: batch
// mode's Sorted combines a key's records with it before sorting them.
func (r *Reduce[K, T]) Combine(a, b T) (T, error) { return r.fn(a, b) }

// EndKey emits the key's final result (batch mode) and drops its state.
func (r *Reduce[K, T]) EndKey() error {
	if v, ok := r.state.Value(); ok {
		if err := r.out.Collect(r.lastTS, v); err != nil {
			return err
		}
	}
	return r.Runtime.EndKey()
}

// Every keyed operator hears of completed checkpoints (incremental state)
// and releases its backend when closed.
var (
	_ op.CheckpointListener = (*Reduce[int, int])(nil)
	_ op.CheckpointListener = (*processInput[int, int, int])(nil)
	_ op.CheckpointListener = (*windowOp[int, int, int, int, Window])(nil)
	_ op.CheckpointListener = (*coProcessOp[int, int, int, int])(nil)
)
