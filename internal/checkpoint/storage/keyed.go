package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// WriteKeyGroups writes the sections of key groups [start, end] as one
// stream named name, in key-group order, and returns its handle with the
// offset of every key group. section returns a key group's bytes, or
// nothing for an empty key group (which then takes no bytes).
func (d *CheckpointDir) WriteKeyGroups(ctx context.Context, name string, start, end int, section func(kg int) ([]byte, error)) (KeyedStateHandle, error) {
	if end < start {
		return KeyedStateHandle{}, fmt.Errorf("write keyed state %s: %w: key groups [%d, %d]", name, ErrInvalid, start, end)
	}
	// The sections stream into the file as they are made, so a large
	// state is never held twice in memory.
	offsets := make([]int64, end-start+1)
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var n int64
		for kg := start; kg <= end; kg++ {
			offsets[kg-start] = n
			sec, err := section(kg)
			if err != nil {
				pw.CloseWithError(fmt.Errorf("key group %d: %w", kg, err))
				return
			}
			if _, err := pw.Write(sec); err != nil {
				return // the reader failed and said why
			}
			n += int64(len(sec))
		}
		pw.Close()
	}()
	h, err := d.WriteState(ctx, name, pr)
	pr.CloseWithError(errors.New("write keyed state: stopped")) // unblocks the writer if WriteState failed
	<-done
	if err != nil {
		return KeyedStateHandle{}, fmt.Errorf("write keyed state %s: %w", name, err)
	}
	return KeyedStateHandle{KeyGroupStart: start, KeyGroupEnd: end, Offsets: offsets, Stream: h}, nil
}
