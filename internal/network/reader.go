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
}

// RecordReader is the typed Reader of an op.Input[T].
type RecordReader[T any] struct {
	codec codec.Codec[T]
	input op.Input[T]
}

// NewRecordReader returns a reader feeding in.
func NewRecordReader[T any](c codec.Codec[T], in op.Input[T]) *RecordReader[T] {
	return &RecordReader[T]{codec: c, input: in}
}

// Deliver implements Reader.
func (r *RecordReader[T]) Deliver(buf []byte, onWatermark func(wm int64) error, onStatus func(idle bool) error) (int, error) {
	n := 0
	for len(buf) > 0 {
		tag := buf[0]
		buf = buf[1:]
		ts := op.NoTimestamp
		switch tag {
		case TagRecordTS:
			if len(buf) < 8 {
				return n, fmt.Errorf("network: truncated record timestamp")
			}
			ts = int64(binary.LittleEndian.Uint64(buf))
			buf = buf[8:]
			fallthrough
		case TagRecord:
			v, m, err := r.codec.Decode(buf)
			if err != nil {
				return n, fmt.Errorf("network: decode record: %w", err)
			}
			buf = buf[m:]
			n++
			if err := r.input.ProcessElement(ts, v); err != nil {
				return n, err
			}
		case TagWatermark:
			if len(buf) < 8 {
				return n, fmt.Errorf("network: truncated watermark")
			}
			wm := int64(binary.LittleEndian.Uint64(buf))
			buf = buf[8:]
			if err := onWatermark(wm); err != nil {
				return n, err
			}
		case TagWatermarkStatus:
			if len(buf) < 1 {
				return n, fmt.Errorf("network: truncated watermark status")
			}
			status := buf[0]
			buf = buf[1:]
			if status != StatusIdle && status != StatusActive {
				return n, fmt.Errorf("network: unknown watermark status 0x%02x", status)
			}
			if err := onStatus(status == StatusIdle); err != nil {
				return n, err
			}
		default:
			return n, fmt.Errorf("network: unknown element tag 0x%02x", tag)
		}
	}
	return n, nil
}
