package storage

import (
	"bytes"
	"context"
	"fmt"
)

// WriteKeyGroups writes the sections of key groups [start, end] as one
// stream named name, in key-group order, and returns its handle with the
// offset of every key group. section returns a key group's bytes, or
// nothing for an empty key group (which then takes no bytes).
func (d *CheckpointDir) WriteKeyGroups(ctx context.Context, name string, start, end int, section func(kg int) ([]byte, error)) (KeyedStateHandle, error) {
	if end < start {
		return KeyedStateHandle{}, fmt.Errorf("write keyed state %s: %w: key groups [%d, %d]", name, ErrInvalid, start, end)
	}
	var buf []byte
	offsets := make([]int64, end-start+1)
	for kg := start; kg <= end; kg++ {
		offsets[kg-start] = int64(len(buf))
		sec, err := section(kg)
		if err != nil {
			return KeyedStateHandle{}, fmt.Errorf("write keyed state %s: key group %d: %w", name, kg, err)
		}
		buf = append(buf, sec...)
	}
	h, err := d.WriteState(ctx, name, bytes.NewReader(buf))
	if err != nil {
		return KeyedStateHandle{}, fmt.Errorf("write keyed state: %w", err)
	}
	return KeyedStateHandle{KeyGroupStart: start, KeyGroupEnd: end, Offsets: offsets, Stream: h}, nil
}
