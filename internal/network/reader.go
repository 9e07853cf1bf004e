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
	input op.Input[T]
}

// NewRecordReader returns a reader feeding in.
func NewRecordReader[T any](c codec.Codec[T], in op.Input[T]) *RecordReader[T] {
	return &RecordReader[T]{codec: codec.NewSlot(c), input: in}
}

// Deliver implements Reader.
func (r *RecordReader[T]) Deliver(buf []byte, onWatermark func(wm int64) error, onStatus func(idle bool) error) (int, error) {
	n, _, err := r.DeliverUntil(buf, onWatermark, onStatus, nil)
	return n, err
}

// DeliverUntil implements Reader.
func (r *RecordReader[T]) DeliverUntil(all []byte, onWatermark func(wm int64) error, onStatus func(idle bool) error, stop func() bool) (n, consumed int, err error) {
	buf := all
	for len(buf) > 0 {
		tag := buf[0]
		buf = buf[1:]
		ts := op.NoTimestamp
		switch tag {
		case TagRecordTS:
			if len(buf) < 8 {
				return n, len(all) - len(buf), fmt.Errorf("network: truncated record timestamp")
			}
			ts = int64(binary.LittleEndian.Uint64(buf))
			buf = buf[8:]
			fallthrough
		case TagRecord:
			v, m, err := r.codec.Decode(buf)
			if err != nil {
				return n, len(all) - len(buf), fmt.Errorf("network: decode record: %w", err)
			}
			buf = buf[m:]
			n++
			if err := r.input.ProcessElement(ts, v); err != nil {
				return n, len(all) - len(buf), err
			}
		case TagWatermark:
			if len(buf) < 8 {
				return n, len(all) - len(buf), fmt.Errorf("network: truncated watermark")
			}
			wm := int64(binary.LittleEndian.Uint64(buf))
			buf = buf[8:]
			if err := onWatermark(wm); err != nil {
				return n, len(all) - len(buf), err
			}
		case TagWatermarkStatus:
			if len(buf) < 1 {
				return n, len(all) - len(buf), fmt.Errorf("network: truncated watermark status")
			}
			status := buf[0]
			buf = buf[1:]
			if status != StatusIdle && status != StatusActive {
				return n, len(all) - len(buf), fmt.Errorf("network: unknown watermark status 0x%02x", status)
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
