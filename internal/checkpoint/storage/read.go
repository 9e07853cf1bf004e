package storage

import (
	"bytes"
	"context"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
)

// snapshotDir resolves a snapshot location (its directory, or its
// _metadata file) to a store and the directory's key.
func (s *Storage) snapshotDir(ctx context.Context, location string) (objectStore, string, error) {
	store, key, err := s.resolve(ctx, location)
	if err != nil {
		return nil, "", err
	}
	if parent, base := splitKey(key); base == MetadataFile {
		key = parent
	}
	return store, key, nil
}

// handleKey returns the key of a handle's file: a plain name is in the
// snapshot directory, "shared/..." and "taskowned/..." are in the job's
// directory, the snapshot directory's parent.
func handleKey(dir, p string) string {
	if outsideDir(p) {
		job, _ := splitKey(dir)
		return joinKey(job, p)
	}
	return joinKey(dir, p)
}

// ReadMetadata reads and decodes the _metadata of the snapshot at location:
// its directory or its _metadata file, as an absolute path or a URL (a
// relative path is taken relative to the storage root), in this Storage's
// store or any other one (another bucket is opened on demand). A snapshot without
// _metadata gives an error wrapping ErrNotFound; a damaged one ErrCorrupt;
// one written in a newer major format ErrVersion.
func (s *Storage) ReadMetadata(ctx context.Context, location string) (*Metadata, error) {
	return s.readAt(ctx, location, false, s.opts.Verify)
}

// ReadVerified reads the metadata at location and checks every file it
// references as LatestCompleted does (Options.Verify): what a restart from
// a known checkpoint calls, so that a damaged one is noticed before any
// task restores from it.
func (s *Storage) ReadVerified(ctx context.Context, location string) (*Metadata, error) {
	return s.readAt(ctx, location, true, s.opts.Verify)
}

// ReadSized reads the metadata at location and checks that every file it
// references exists with the size its handle records, reading none of
// them (VerifySize, whatever Options.Verify says): what a restart from the
// coordinator's latest completed checkpoint calls. The content is checked
// where it is read, by the subtasks that restore it: a stream read whole
// against its CRC, a shared file as it is downloaded, a part of a stream
// by its sections' framing; a subtask that meets damage fails the
// generation unrecoverably. So a restart costs one small read and a size
// query per file, however large the state.
func (s *Storage) ReadSized(ctx context.Context, location string) (*Metadata, error) {
	return s.readAt(ctx, location, true, VerifySize)
}

func (s *Storage) readAt(ctx context.Context, location string, verify bool, mode VerifyMode) (*Metadata, error) {
	store, dir, err := s.snapshotDir(ctx, location)
	if err != nil {
		return nil, fmt.Errorf("read metadata of %s: %w", location, err)
	}
	md, err := s.readMetadata(ctx, store, dir)
	if err != nil {
		return nil, fmt.Errorf("read metadata of %s: %w", location, err)
	}
	if verify {
		if err := s.verify(ctx, store, dir, md, mode); err != nil {
			return nil, fmt.Errorf("verify %s: %w", location, err)
		}
	}
	return md, nil
}

func (s *Storage) readMetadata(ctx context.Context, store objectStore, dir string) (*Metadata, error) {
	rc, err := store.get(ctx, joinKey(dir, MetadataFile))
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, s.opts.MaxMetadataSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", MetadataFile, err)
	}
	if int64(len(b)) > s.opts.MaxMetadataSize {
		return nil, fmt.Errorf("%w: %s is larger than MaxMetadataSize (%d bytes)", ErrCorrupt, MetadataFile, s.opts.MaxMetadataSize)
	}
	return Decode(b)
}

// ReadState opens the stream of h, a handle from the Metadata of the
// snapshot at location. The reader checks the stream against the handle:
// reading past its size, or reaching the end at another size or with
// another CRC, fails with an error wrapping ErrCorrupt instead of io.EOF.
// So a caller must read to io.EOF before it trusts what it read (for a
// keyed stream read by offsets, verify once with VerifyState, or read
// everything). A missing file gives ErrNotFound.
func (s *Storage) ReadState(ctx context.Context, location string, h StreamHandle) (io.ReadCloser, error) {
	if err := h.validate(KindCheckpoint); err != nil {
		return nil, fmt.Errorf("read state from %s: %w: %w", location, ErrInvalid, err)
	}
	if h.IsEmpty() {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	if h.IsInline() {
		return io.NopCloser(bytes.NewReader(h.Inline)), nil // validate checked the CRC
	}
	store, dir, err := s.snapshotDir(ctx, location)
	if err != nil {
		return nil, fmt.Errorf("read state %s from %s: %w", h.Path, location, err)
	}
	rc, err := store.get(ctx, handleKey(dir, h.Path))
	if err != nil {
		return nil, fmt.Errorf("read state %s from %s: %w", h.Path, location, err)
	}
	return &verifyingReader{rc: rc, name: referenced(store, dir, h.Path, location), size: h.Size,
		crc: h.CRC, h: crc32.New(castagnoli), checkCRC: true}, nil
}

// ReadShared opens a shared file referenced by the snapshot at location.
// The reader checks the file against its handle as ReadState does: its
// size, and its CRC when the handle records one (every file written in
// format 1.1 or later).
func (s *Storage) ReadShared(ctx context.Context, location string, f SharedFile) (io.ReadCloser, error) {
	if err := f.validate(KindCheckpoint); err != nil {
		return nil, fmt.Errorf("read shared file from %s: %w: %w", location, ErrInvalid, err)
	}
	store, dir, err := s.snapshotDir(ctx, location)
	if err != nil {
		return nil, fmt.Errorf("read shared file %s from %s: %w", f.Path, location, err)
	}
	rc, err := store.get(ctx, handleKey(dir, f.Path))
	if err != nil {
		return nil, fmt.Errorf("read shared file %s from %s: %w", f.Path, location, err)
	}
	return &verifyingReader{rc: rc, name: referenced(store, dir, f.Path, location), size: f.Size,
		crc: f.CRC, checkCRC: f.HasCRC, h: crc32.New(castagnoli)}, nil
}

// VerifyShared reads the whole of shared file f and checks its size and,
// when its handle records one, its CRC.
func (s *Storage) VerifyShared(ctx context.Context, location string, f SharedFile) error {
	rc, err := s.ReadShared(ctx, location, f)
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := io.Copy(io.Discard, ctxReader{ctx, rc}); err != nil {
		return fmt.Errorf("verify shared file %s of %s: %w", f.Path, location, err)
	}
	return nil
}

// referenced names the file of handle path p for errors: where it is, and
// which snapshot references it (a shared file is not inside the snapshot's
// directory, and may be referenced by several).
func referenced(store objectStore, dir, p, location string) string {
	return fmt.Sprintf("%s (referenced by %s)", store.locate(handleKey(dir, p)), location)
}

// VerifyState reads the whole stream of h and checks its size and CRC.
func (s *Storage) VerifyState(ctx context.Context, location string, h StreamHandle) error {
	rc, err := s.ReadState(ctx, location, h)
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := io.Copy(io.Discard, ctxReader{ctx, rc}); err != nil {
		return fmt.Errorf("verify state %s of %s: %w", h.Path, location, err)
	}
	return nil
}

// verifyingReader turns a stream that does not match its handle into an
// ErrCorrupt error at the point the mismatch shows.
type verifyingReader struct {
	rc       io.ReadCloser
	name     string
	size     int64
	crc      uint32
	checkCRC bool
	h        hash.Hash32
	n        int64
	err      error
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.rc.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if v.n > v.size {
		v.err = fmt.Errorf("%w: %s is longer than the %d bytes its handle records", ErrCorrupt, v.name, v.size)
		return 0, v.err
	}
	if err == io.EOF {
		switch sum := v.h.Sum32(); {
		case v.n != v.size:
			v.err = fmt.Errorf("%w: %s has %d bytes, its handle records %d", ErrCorrupt, v.name, v.n, v.size)
		case v.checkCRC && sum != v.crc:
			v.err = fmt.Errorf("%w: %s has CRC %08x, its handle records %08x", ErrCorrupt, v.name, sum, v.crc)
		default:
			v.err = io.EOF
		}
		return n, v.err
	} else if err != nil {
		v.err = fmt.Errorf("read %s: %w", v.name, err)
		return n, v.err
	}
	return n, nil
}

func (v *verifyingReader) Close() error { return v.rc.Close() }
