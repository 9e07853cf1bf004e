package weir

import (
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/operator/keyedop"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// defaultSortMemory is the memory of each batch keyed operator's sort
// before it spills to disk (see WithSortMemory).
const defaultSortMemory = 64 << 20

// WithSortMemory sets the bytes of records each keyed operator subtask of
// a batch job sorts in memory before spilling a sorted run to local disk
// (default 64 MiB).
// A Reduce gives half of it to a table of
// partial results that combines each key's records before the sort.
func WithSortMemory(bytes int64) Option { return func(o *Options) { o.SortMemory = bytes } }

// batchFactory wraps the factory of a single-input keyed operator for batch
// execution: its input is sorted by key (spilling past the sort memory) and
// fed one key at a time, and the operator emits final results only.
func batchFactory[K comparable, T any](ks KeyedStream[K, T], factory graph.Factory) graph.Factory {
	memory := ks.env.opts.SortMemory
	if memory <= 0 {
		memory = defaultSortMemory
	}
	return func(out any) (any, error) {
		kc, err := codec.For[K]()
		if err != nil {
			return nil, fmt.Errorf("batch mode sorts by key, and the key cannot be encoded: %w", err)
		}
		inner, err := factory(out)
		if err != nil {
			return nil, err
		}
		wm, _ := out.(interface{ EmitWatermark(int64) error })
		return keyedop.Sorted(inner, keyedop.SortSpec[K, T]{
			Key: ks.key, KeyCodec: kc, Codec: typeinfo.New[T]().Codec(), Memory: int(memory), Out: wm,
		})
	}
}
