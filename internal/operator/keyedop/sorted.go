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
}

func (s *sorted[K, T]) Open(ctx *op.Context) error {
	s.bk.SetBatch()
	s.sorter = extsort.New(ctx.StateBackend.LocalDir, s.spec.Memory)
	return s.op.Open(ctx)
}

// ProcessElement adds the record to the sort.
func (s *sorted[K, T]) ProcessElement(ts int64, v T) error {
	s.kbuf = s.spec.KeyCodec.Append(s.kbuf[:0], s.spec.Key(v))
	s.vbuf = s.spec.Codec.Append(binary.LittleEndian.AppendUint64(s.vbuf[:0], uint64(ts)), v)
	return s.sorter.Add(s.kbuf, s.vbuf)
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
	it, err := s.sorter.Sorted()
	if err != nil {
		return err
	}
	defer it.Close()
	var prev []byte
	started := false
	for it.Next() {
		if started && !bytes.Equal(prev, it.Key()) {
			if err := s.bk.EndKey(); err != nil {
				return err
			}
		}
		prev, started = append(prev[:0], it.Key()...), true
		rec := it.Value()
		if len(rec) < 8 {
			return fmt.Errorf("keyedop: sorted record of %d bytes has no timestamp", len(rec))
		}
		v, _, err := s.spec.Codec.Decode(rec[8:])
		if err != nil {
			return fmt.Errorf("keyedop: decode sorted record: %w", err)
		}
		if err := s.in.ProcessElement(int64(binary.LittleEndian.Uint64(rec)), v); err != nil {
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
