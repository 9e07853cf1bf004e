package keyedop

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/extsort"
	"github.com/weir-engine/weir/internal/op"
)

// BatchKeyed is implemented by keyed operators that can run in batch mode;
// keyed.Runtime provides it, and an operator with results of its own to
// emit at the end of a key (Reduce) overrides EndKey.
type BatchKeyed interface {
	// SetBatch is called before Open.
	SetBatch()
	// EndKey is called after the last record of the current key.
	EndKey() error
}

// Combiner is implemented by keyed operators whose function may be
// applied to partial results of a key (Reduce): Sorted then combines the
// records of each key as they arrive, before sorting, and sorts one
// partial result per key instead of every record.
type Combiner[K comparable, T any] interface {
	Combine(a, b T) (T, error)
	// ProcessCombined processes a partial result of key k. The key is
	// given, not selected from v: a combined value need not have its
	// records' key (a sum keyed by v%3 is not its own key).
	ProcessCombined(k K, ts int64, v T) error
}

// partialResult is a key's records combined so far, with the timestamp of
// the last of them.
type partialResult[K comparable, T any] struct {
	key K
	ts  int64
	v   T
}

// partialOverhead is what the memory budget charges per partial result
// besides its encoded key and value: the map entry and the slice element.
const partialOverhead = 64

// SortSpec is what Sorted needs to sort the records of a keyed operator.
type SortSpec[K comparable, T any] struct {
	Key      func(T) K
	KeyCodec codec.Codec[K]
	Codec    codec.Codec[T]
	// Memory is the bytes of records held in memory before a sorted run
	// spills to disk.
	Memory int
	// Out receives the final watermark of the operator's input when inner
	// does not handle watermarks.
	Out interface{ EmitWatermark(wm int64) error }
}

// Sorted wraps a single-input keyed operator for batch execution (Flink's
// sort-based keyed input): it collects the input, sorts it by key with an
// external sort that spills past spec.Memory, and at the end of input feeds
// inner one key after the other, calling EndKey after each key's last
// record; inner keeps the state of one key at a time and emits only final
// results. Watermarks of the input are not needed and dropped; the end of
// time is passed on after the last key.
//
// When inner is a Combiner, the records of a key are combined in a hash
// table as they arrive, in arrival order, and only the partial results are
// sorted; spec.Memory is then shared by the table and the sort. As long as
// a subtask's distinct keys fit in the table each key has one partial
// result, and inner sees exactly what the sort of every record would have
// given it folded. When they do not fit, the table is flushed to the sort
// and a key may have several partial results, which inner combines again:
// that takes the function to be associative, as Flink's DataSet API takes
// a ReduceFunction to be (it runs it as a combiner too).
func Sorted[K comparable, T any](inner any, spec SortSpec[K, T]) (any, error) {
	s := &sorted[K, T]{spec: spec}
	var ok bool
	if s.op, ok = inner.(op.Operator); !ok {
		return nil, fmt.Errorf("keyedop: %T is not an operator", inner)
	}
	if s.in, ok = inner.(op.Input[T]); !ok {
		return nil, fmt.Errorf("keyedop: %T does not take the sorted input", inner)
	}
	if s.bk, ok = inner.(BatchKeyed); !ok {
		return nil, fmt.Errorf("keyedop: %T cannot run in batch mode", inner)
	}
	if c, ok := inner.(Combiner[K, T]); ok {
		s.combine, s.processCombined = c.Combine, c.ProcessCombined
	}
	return s, nil
}

type sorted[K comparable, T any] struct {
	spec       SortSpec[K, T]
	op         op.Operator
	in         op.Input[T]
	bk         BatchKeyed
	sorter     *extsort.Sorter
	kbuf, vbuf []byte
	drained    bool
	// combine, when inner is a Combiner, folds records into partials.
	combine         func(a, b T) (T, error)
	processCombined func(k K, ts int64, v T) error
	partialIndex    map[K]int
	partials        []partialResult[K, T]
	partialBytes    int
}

func (s *sorted[K, T]) Open(ctx *op.Context) error {
	s.bk.SetBatch()
	if s.combine != nil {
		s.partialIndex = make(map[K]int)
	}
	s.sorter = extsort.New(ctx.StateBackend.LocalDir, s.sortBudget())
	return s.op.Open(ctx)
}

// sortBudget is the sort's part of spec.Memory: all of it, or half when
// the partials' table holds the other half.
func (s *sorted[K, T]) sortBudget() int {
	if s.combine != nil {
		return max(s.spec.Memory/2, 1)
	}
	return s.spec.Memory
}

// ProcessElement adds the record to the sort, or combines it into its
// key's partial result.
func (s *sorted[K, T]) ProcessElement(ts int64, v T) error {
	if s.combine != nil {
		return s.addPartial(ts, v)
	}
	return s.add(s.spec.Key(v), ts, v)
}

// add encodes a record and adds it to the sort.
func (s *sorted[K, T]) add(k K, ts int64, v T) error {
	s.encode(k, ts, v)
	return s.sorter.Add(s.kbuf, s.vbuf)
}

// encode puts the sort's key of k into kbuf and ts and v into vbuf.
func (s *sorted[K, T]) encode(k K, ts int64, v T) {
	s.kbuf = s.spec.KeyCodec.Append(s.kbuf[:0], k)
	s.vbuf = s.spec.Codec.Append(binary.LittleEndian.AppendUint64(s.vbuf[:0], uint64(ts)), v)
}

// addPartial combines a record into its key's partial result, or starts
// one; the table is flushed to the sort when it outgrows its budget. A
// partial is charged the size of its key's first record encoded.
func (s *sorted[K, T]) addPartial(ts int64, v T) error {
	k := s.spec.Key(v)
	if i, ok := s.partialIndex[k]; ok {
		p := &s.partials[i]
		acc, err := s.combine(p.v, v)
		if err != nil {
			return err
		}
		p.v, p.ts = acc, ts
		return nil
	}
	s.partialIndex[k] = len(s.partials)
	s.partials = append(s.partials, partialResult[K, T]{key: k, ts: ts, v: v})
	s.encode(k, ts, v)
	s.partialBytes += len(s.kbuf) + len(s.vbuf) + partialOverhead
	if s.partialBytes > s.sortBudget() {
		return s.flushPartials()
	}
	return nil
}

// flushPartials adds the partial results to the sort and empties the
// table.
func (s *sorted[K, T]) flushPartials() error {
	for i := range s.partials {
		p := &s.partials[i]
		if err := s.add(p.key, p.ts, p.v); err != nil {
			return err
		}
	}
	clear(s.partials)
	s.partials = s.partials[:0]
	clear(s.partialIndex)
	s.partialBytes = 0
	return nil
}

// ProcessWatermark drops the watermark: in batch mode time jumps to its
// end at the end of each key.
func (s *sorted[K, T]) ProcessWatermark(int64) error { return nil }

// EndInput feeds the sorted input to inner, then ends inner's input.
func (s *sorted[K, T]) EndInput(input int) error {
	if err := s.drain(); err != nil {
		return err
	}
	if b, ok := s.op.(op.BoundedInput); ok {
		return b.EndInput(input)
	}
	return nil
}

func (s *sorted[K, T]) Finish() error {
	if err := s.drain(); err != nil {
		return err
	}
	return s.op.Finish()
}

func (s *sorted[K, T]) Close() error {
	var err error
	if s.sorter != nil {
		err = s.sorter.Close()
	}
	return errors.Join(s.op.Close(), err)
}

// drain runs inner over the sorted input, once.
func (s *sorted[K, T]) drain() error {
	if s.drained {
		return nil
	}
	s.drained = true
	if s.combine != nil {
		if err := s.flushPartials(); err != nil {
			return err
		}
	}
	it, err := s.sorter.Sorted()
	if err != nil {
		return err
	}
	defer it.Close()
	var prev []byte
	var key K // the current key, decoded when partials are combined
	started := false
	for it.Next() {
		newKey := !started || !bytes.Equal(prev, it.Key())
		if started && newKey {
			if err := s.bk.EndKey(); err != nil {
				return err
			}
		}
		prev, started = append(prev[:0], it.Key()...), true
		if newKey && s.combine != nil {
			if key, _, err = s.spec.KeyCodec.Decode(prev); err != nil {
				return fmt.Errorf("keyedop: decode sorted key: %w", err)
			}
		}
		rec := it.Value()
		if len(rec) < 8 {
			return fmt.Errorf("keyedop: sorted record of %d bytes has no timestamp", len(rec))
		}
		v, _, err := s.spec.Codec.Decode(rec[8:])
		if err != nil {
			return fmt.Errorf("keyedop: decode sorted record: %w", err)
		}
		ts := int64(binary.LittleEndian.Uint64(rec))
		if s.combine != nil {
			err = s.processCombined(key, ts, v)
		} else {
			err = s.in.ProcessElement(ts, v)
		}
		if err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if started {
		if err := s.bk.EndKey(); err != nil {
			return err
		}
	}
	if w, ok := s.op.(op.WatermarkInput); ok {
		return w.ProcessWatermark(op.MaxWatermark)
	}
	return s.spec.Out.EmitWatermark(op.MaxWatermark)
}
