package keyedop

import (
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
)

// benchRec is a record of key type K with a count to reduce.
type benchRec[K comparable] struct {
	K K
	N int64
}

// structKey is a composite key, hashed from its encoding.
type structKey struct {
	Seller int64
	City   string
}

// discard drops what it is given.
type discard[T any] struct{}

func (discard[T]) Collect(int64, T) error    { return nil }
func (discard[T]) EmitWatermark(int64) error { return nil }

// benchKeyedReduce runs a rolling count over batches of 64 records of
// keys, each batch handed with its key groups from the frames (as a keyed
// exchange's reader does) beside the same batches the operator hashes
// itself: what the key group in the frame saves per record.
func benchKeyedReduce[K comparable](b *testing.B, keys []K) {
	h, err := keygroup.KeyHasher[K]()
	if err != nil {
		b.Fatal(err)
	}
	const maxP, batch = 128, 64
	groups := keygroup.NewAssigner(maxP)
	vs := make([]benchRec[K], 4096)
	gs := make([]uint16, len(vs))
	for i := range vs {
		vs[i] = benchRec[K]{K: keys[(i*7919)%len(keys)], N: 1}
		gs[i] = uint16(groups.Of(h.Hash(vs[i].K)))
	}
	sum := func(a, b benchRec[K]) (benchRec[K], error) { a.N += b.N; return a, nil }
	for _, mode := range []string{"hashed", "frame"} {
		b.Run(mode, func(b *testing.B) {
			r := NewReduce(sum, func(v benchRec[K]) K { return v.K }, h.Func(), nil, op.Output[benchRec[K]](discard[benchRec[K]]{}))
			r.SetHasher(h)
			ctx := &op.Context{Parallelism: 1, MaxParallelism: maxP, KeyGroups: keygroup.RangeFor(maxP, 1, 0)}
			if err := r.Open(ctx); err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i += batch {
				j := i % len(vs)
				var err error
				if mode == "frame" {
					err = r.CollectKeyedBatch(nil, gs[j:j+batch], vs[j:j+batch])
				} else {
					err = r.CollectBatch(nil, vs[j:j+batch])
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKeyedReduce is the rolling reduce per record with the key group
// from the frame ("frame") beside hashing the key ("hashed"), for an
// integer, a string and a struct key of 1000 distinct values.
func BenchmarkKeyedReduce(b *testing.B) {
	ints := make([]int64, 1000)
	strs := make([]string, 1000)
	structs := make([]structKey, 1000)
	for i := range ints {
		ints[i] = int64(i) * 1_000_003
		strs[i] = fmt.Sprintf("user-%06d@example.org", i)
		structs[i] = structKey{Seller: int64(i), City: fmt.Sprintf("city-%d", i%37)}
	}
	b.Run("int64", func(b *testing.B) { benchKeyedReduce(b, ints) })
	b.Run("string", func(b *testing.B) { benchKeyedReduce(b, strs) })
	b.Run("struct", func(b *testing.B) { benchKeyedReduce(b, structs) })
}
