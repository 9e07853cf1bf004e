package network

import (
	"encoding/binary"
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
)

// Reader decodes data buffers into typed records for one operator input.
type Reader interface {
	// Deliver decodes every element of buf: records go to the input,
	// watermarks to onWatermark, watermark statuses to onStatus (idle or
	// active). It returns the number of records.
	Deliver(buf []byte, onWatermark func(wm int64) error, onStatus func(idle bool) error) (int, error)
	// DeliverUntil is Deliver that stops after an element when stop
	// (checked after every element) reports true. It returns the records
	// delivered and how many bytes of buf it consumed: len(buf) when it
	// reached the end. Elements never span buffers, so the rest is a
	// valid buffer to resume from, or to keep as channel state.
	DeliverUntil(buf []byte, onWatermark func(wm int64) error, onStatus func(idle bool) error, stop func() bool) (records, consumed int, err error)
}

// RecordReader is the typed Reader of an op.Input[T]. It is owned by the
// consuming task's goroutine.
type RecordReader[T any] struct {
	codec *codec.Slot[T]
	// shared decodes the records of a batch input that takes no key
	// groups, when they can hold strings or byte slices: those of a
	// buffer's records then share one allocation instead of one per
	// field (see NewBatchReader). nil for other readers.
	shared *codec.BatchDecoder[T]
	input  op.Input[T]
	// batch is input when the reader hands it batches (NewBatchReader):
	// runs of records are decoded into the reused slab vs (their
	// timestamps into ts; hasTS when one has a timestamp) and handed on
	// whole, before the next watermark or status, when the slab is full
	// and at the end of the buffer.
	batch op.BatchInput[T]
	vs    []T
	ts    []int64
	hasTS bool
	// keyed is batch when it also takes key groups: groups then holds the
	// key group of every record of the batch from a keyed frame, and
	// ungrouped is set when one came without (then groups is not used).
	keyed     op.KeyedBatchInput[T]
	groups    []uint16
	ungrouped bool
}

// readBatch is the most records a batching reader hands on at once.
const readBatch = 64

// NewRecordReader returns a reader feeding in a record at a time.
func NewRecordReader[T any](c codec.Codec[T], in op.Input[T]) *RecordReader[T] {
	return &RecordReader[T]{codec: codec.NewSlot(c), input: in}
}

// NewBatchReader returns a reader feeding in, a batch at a time when in
// takes batches (op.BatchInput; see op.BatchOutput for the terms), else a
// record at a time. DeliverUntil still checks stop after every element: a
// stop hands on the records decoded so far as a shorter batch. An input
// that also takes key groups (op.KeyedBatchInput) gets those of the keyed
// frames with the batch, when every record of the batch had one.
//
// For a batch input that takes no key groups, the strings and byte slices
// of the records share allocations of a buffer's size (codec.BatchDecoder)
// rather than one allocation per field: a record's strings stay alive as
// long as any string of the records decoded with them is referenced. Keyed
// inputs decode each field on its own, because their state keeps keys and
// values for the life of the job, and one of them would keep the strings of
// a whole buffer alive with it.
func NewBatchReader[T any](c codec.Codec[T], in op.Input[T]) *RecordReader[T] {
	r := NewRecordReader(c, in)
	if b, ok := in.(op.BatchInput[T]); ok {
		r.batch, r.vs, r.ts = b, make([]T, 0, readBatch), make([]int64, 0, readBatch)
	}
	if k, ok := in.(op.KeyedBatchInput[T]); ok {
		r.keyed, r.groups = k, make([]uint16, 0, readBatch)
	}
	if r.batch != nil && r.keyed == nil {
		if d := codec.NewBatchDecoder(c); d.Shares() {
			r.shared = d
		}
	}
	return r
}

// add decodes the record at the front of buf with timestamp ts and key
// group keyGroup (-1: none) into the batch and returns the bytes it read.
func (r *RecordReader[T]) add(buf []byte, ts int64, keyGroup int) (int, error) {
	var zero T
	r.vs = append(r.vs, zero)
	var m int
	var err error
	if r.shared != nil {
		m, err = r.shared.DecodeInto(buf, &r.vs[len(r.vs)-1])
	} else {
		m, err = r.codec.DecodeInto(buf, &r.vs[len(r.vs)-1])
	}
	if err != nil {
		r.vs[len(r.vs)-1] = zero
		r.vs = r.vs[:len(r.vs)-1]
		return 0, fmt.Errorf("network: decode record: %w", err)
	}
	r.ts = append(r.ts, ts)
	r.hasTS = r.hasTS || ts != op.NoTimestamp
	if r.keyed != nil {
		if keyGroup < 0 {
			r.ungrouped = true
		} else {
			r.groups = append(r.groups, uint16(keyGroup))
		}
	}
	return m, nil
}

// flush hands the batch on, if any, and empties the slab. A reader that
// does not batch has none.
func (r *RecordReader[T]) flush() error {
	if len(r.vs) == 0 {
		return nil
	}
	var ts []int64
	if r.hasTS {
		ts = r.ts
	}
	var err error
	if r.keyed != nil && !r.ungrouped {
		err = r.keyed.CollectKeyedBatch(ts, r.groups, r.vs)
	} else {
		err = r.batch.CollectBatch(ts, r.vs)
	}
	clear(r.vs) // drop what the records reference
	r.vs, r.ts, r.hasTS = r.vs[:0], r.ts[:0], false
	r.groups, r.ungrouped = r.groups[:0], false
	return err
}

// Deliver implements Reader.
func (r *RecordReader[T]) Deliver(buf []byte, onWatermark func(wm int64) error, onStatus func(idle bool) error) (int, error) {
	n, _, err := r.DeliverUntil(buf, onWatermark, onStatus, nil)
	return n, err
}

// DeliverUntil implements Reader.
func (r *RecordReader[T]) DeliverUntil(all []byte, onWatermark func(wm int64) error, onStatus func(idle bool) error, stop func() bool) (n, consumed int, err error) {
	buf := all
	if r.shared != nil {
		// The strings of buf's records fit in len(buf) bytes.
		r.shared.Begin(len(all))
	}
	defer func() {
		// The records of the batch go on before the reader returns, also
		// when it stops at an error after them, as a record at a time
		// they would have gone on before it.
		if ferr := r.flush(); err == nil {
			err = ferr
		}
	}()
	for len(buf) > 0 {
		tag := buf[0]
		buf = buf[1:]
		switch {
		case isRecord(tag):
			ts, keyGroup, h, err := readRecordHeader(tag, buf)
			if err != nil {
				return n, len(all) - len(buf), err
			}
			buf = buf[h:]
			if r.batch != nil {
				m, err := r.add(buf, ts, keyGroup)
				if err != nil {
					return n, len(all) - len(buf), err
				}
				buf = buf[m:]
				n++
				if len(r.vs) == readBatch {
					if err := r.flush(); err != nil {
						return n, len(all) - len(buf), err
					}
				}
				break
			}
			v, m, err := r.codec.Decode(buf)
			if err != nil {
				return n, len(all) - len(buf), fmt.Errorf("network: decode record: %w", err)
			}
			buf = buf[m:]
			n++
			if err := r.input.ProcessElement(ts, v); err != nil {
				return n, len(all) - len(buf), err
			}
		case tag == TagWatermark:
			if len(buf) < 8 {
				return n, len(all) - len(buf), fmt.Errorf("network: truncated watermark")
			}
			wm := int64(binary.LittleEndian.Uint64(buf))
			buf = buf[8:]
			if err := r.flush(); err != nil {
				return n, len(all) - len(buf), err
			}
			if err := onWatermark(wm); err != nil {
				return n, len(all) - len(buf), err
			}
		case tag == TagWatermarkStatus:
			if len(buf) < 1 {
				return n, len(all) - len(buf), fmt.Errorf("network: truncated watermark status")
			}
			status := buf[0]
			buf = buf[1:]
			if status != StatusIdle && status != StatusActive {
				return n, len(all) - len(buf), fmt.Errorf("network: unknown watermark status 0x%02x", status)
			}
			if err := r.flush(); err != nil {
				return n, len(all) - len(buf), err
			}
			if err := onStatus(status == StatusIdle); err != nil {
				return n, len(all) - len(buf), err
			}
		default:
			return n, len(all) - len(buf), fmt.Errorf("network: unknown element tag 0x%02x", tag)
		}
		if len(buf) > 0 && stop != nil && stop() {
			break
		}
	}
	return n, len(all) - len(buf), nil
}
