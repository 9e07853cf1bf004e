package storage

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// ReadStateRange opens n bytes of the stream of h starting at offset off:
// what a subtask restoring at another parallelism reads of an old
// subtask's keyed stream, the sections of the key groups it owns (see
// KeyedStateHandle.Offsets), instead of the whole stream. A range that
// covers the whole stream is read as ReadState reads it, CRC included. A
// part of a stream cannot be checked against the stream's CRC: the reader
// checks that the range lies inside the size the handle records and that
// the file yields all of its bytes (a shorter file gives an error wrapping
// ErrCorrupt), and leaves the CRC to whoever verified the snapshot (a
// restart's ReadVerified, Options.Verify) and to the decoder of the
// sections. A range outside the stream gives ErrInvalid.
func (s *Storage) ReadStateRange(ctx context.Context, location string, h StreamHandle, off, n int64) (io.ReadCloser, error) {
	if err := h.validate(KindCheckpoint); err != nil {
		return nil, fmt.Errorf("read state from %s: %w: %w", location, ErrInvalid, err)
	}
	if off < 0 || n < 0 || off > h.Size || n > h.Size-off {
		return nil, fmt.Errorf("read state %s from %s: %w: bytes [%d, %d) of a %d-byte stream",
			h.Path, location, ErrInvalid, off, off+n, h.Size)
	}
	if off == 0 && n == h.Size {
		return s.ReadState(ctx, location, h)
	}
	if n == 0 {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	if h.IsInline() {
		return io.NopCloser(bytes.NewReader(h.Inline[off : off+n])), nil
	}
	store, dir, err := s.snapshotDir(ctx, location)
	if err != nil {
		return nil, fmt.Errorf("read state %s from %s: %w", h.Path, location, err)
	}
	key := handleKey(dir, h.Path)
	rc, err := store.getRange(ctx, key, off, n)
	if err != nil {
		return nil, fmt.Errorf("read state %s from %s: %w", h.Path, location, err)
	}
	return &rangeReader{rc: rc, left: n, name: referenced(store, dir, h.Path, location), off: off, n: n}, nil
}

// rangeReader turns a range that ends early into an ErrCorrupt error: the
// handle recorded a stream long enough to hold it.
type rangeReader struct {
	rc     io.ReadCloser
	left   int64
	name   string
	off, n int64
	err    error
}

func (r *rangeReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.left == 0 {
		r.err = io.EOF
		return 0, r.err
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.rc.Read(p)
	r.left -= int64(n)
	switch {
	case err == io.EOF && r.left > 0:
		r.err = fmt.Errorf("%w: %s ends %d bytes before the end of the range [%d, %d) its handle allows",
			ErrCorrupt, r.name, r.left, r.off, r.off+r.n)
		return n, r.err
	case err == io.EOF || (err == nil && r.left == 0):
		r.err = io.EOF
		return n, nil
	case err != nil:
		r.err = fmt.Errorf("read %s: %w", r.name, err)
		return n, r.err
	}
	return n, nil
}

func (r *rangeReader) Close() error { return r.rc.Close() }
