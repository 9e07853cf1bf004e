package storage_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// A ranged read returns exactly the bytes asked for, on every store; a
// range outside the handle is refused; a file that is shorter than its
// handle says fails with ErrCorrupt inside the range, as a whole read
// would.
func TestReadStateRange(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		ctx := context.Background()
		s := open(t, b.url, b.opts)
		payload := bytes.Repeat([]byte("0123456789abcdef"), 4096)
		_, loc := checkpointOf(t, s, 1, payload)
		md, err := s.ReadMetadata(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		h := md.Operators[0].Subtasks[0].Keyed[0].Stream
		for _, tt := range []struct {
			name   string
			off, n int64
			err    error
		}{
			{name: "whole", off: 0, n: h.Size},
			{name: "head", off: 0, n: 10},
			{name: "middle", off: 1000, n: 20000},
			{name: "tail", off: h.Size - 7, n: 7},
			{name: "empty", off: 50, n: 0},
			{name: "past the end", off: h.Size - 7, n: 8, err: storage.ErrInvalid},
			{name: "negative", off: -1, n: 8, err: storage.ErrInvalid},
		} {
			t.Run(tt.name, func(t *testing.T) {
				got, err := readAll(s.ReadStateRange(ctx, loc, h, tt.off, tt.n))
				if tt.err != nil {
					if !errors.Is(err, tt.err) {
						t.Fatalf("err = %v, want %v", err, tt.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if want := payload[tt.off : tt.off+tt.n]; !bytes.Equal(got, want) {
					t.Fatalf("read %d bytes, want %d (equal: %v)", len(got), len(want), bytes.Equal(got, want))
				}
			})
		}
		t.Run("truncated file", func(t *testing.T) {
			file := b.fileOf(loc, h.Path)
			b.write(t, file, payload[:h.Size/2])
			_, err := readAll(s.ReadStateRange(ctx, loc, h, h.Size/2-10, 100))
			if !errors.Is(err, storage.ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			if got, err := readAll(s.ReadStateRange(ctx, loc, h, 0, 100)); err != nil || !bytes.Equal(got, payload[:100]) {
				t.Fatalf("a range inside what is left: %d bytes, %v", len(got), err)
			}
		})
	})
}
