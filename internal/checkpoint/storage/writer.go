package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"sync"
)

// CheckpointDir writes one snapshot: its state files, then its _metadata.
// Any number of goroutines may write state files at once; Commit comes
// last. A snapshot directory without _metadata is never taken as a
// completed snapshot, so a writer that fails or is abandoned half-way
// leaves garbage but no wrong checkpoint (Abort removes the garbage).
type CheckpointDir struct {
	s     *Storage
	store objectStore
	dir   string // key of the snapshot directory
	job   string // key of the job directory (shared/, taskowned/)
	jobID string
	id    int64
	kind  Kind

	mu struct {
		sync.Mutex
		committed, aborted bool
	}
}

// CreateCheckpointWriter returns the writer of checkpoint id of job jobID,
// in <root>/<jobID>/chk-<id>/. Nothing is written until the first call.
func (s *Storage) CreateCheckpointWriter(jobID string, id int64) (*CheckpointDir, error) {
	job, err := s.jobKey(jobID)
	if err != nil {
		return nil, fmt.Errorf("create checkpoint writer: %w", err)
	}
	if id < 0 {
		return nil, fmt.Errorf("create checkpoint writer: %w: negative checkpoint id %d", ErrInvalid, id)
	}
	return &CheckpointDir{s: s, store: s.store, dir: joinKey(job, checkpointDirName(id)), job: job,
		jobID: jobID, id: id, kind: KindCheckpoint}, nil
}

// CreateSavepointWriter returns the writer of a savepoint of job jobID with
// checkpoint id id, in a new directory
// <targetDir>/savepoint-<first 6 characters of jobID>-<12 random hex>/.
// targetDir is an absolute path or a URL (a relative path is taken relative
// to the storage root); empty means Options.SavepointDir, and if that is
// empty too, "savepoints" under the storage root. Everything the
// savepoint references is written into its directory (WriteShared and
// WriteTaskOwned included), so it can be moved or copied as a whole.
func (s *Storage) CreateSavepointWriter(ctx context.Context, jobID string, id int64, targetDir string) (*CheckpointDir, error) {
	if err := checkSegment(jobID); err != nil {
		return nil, fmt.Errorf("create savepoint writer: %w: job id: %w", ErrInvalid, err)
	}
	if id < 0 {
		return nil, fmt.Errorf("create savepoint writer: %w: negative checkpoint id %d", ErrInvalid, id)
	}
	if targetDir == "" {
		targetDir = s.opts.SavepointDir
	}
	if targetDir == "" {
		targetDir = "savepoints"
	}
	store, target, err := s.resolve(ctx, targetDir)
	if err != nil {
		return nil, fmt.Errorf("create savepoint writer in %s: %w", targetDir, err)
	}
	suffix, err := randomHex(s.opts.Rand, 6)
	if err != nil {
		return nil, fmt.Errorf("create savepoint writer: %w", err)
	}
	dir := joinKey(target, savepointDirPrefix+jobID[:min(6, len(jobID))]+"-"+suffix)
	return &CheckpointDir{s: s, store: store, dir: dir, job: dir, jobID: jobID, id: id, kind: KindSavepoint}, nil
}

// Location returns the snapshot's location: the directory that ReadMetadata,
// ReadState and Discard take, and that Commit returns.
func (d *CheckpointDir) Location() string { return d.store.locate(d.dir) }

// Kind tells whether d writes a checkpoint or a savepoint.
func (d *CheckpointDir) Kind() Kind { return d.kind }

func (d *CheckpointDir) checkOpen() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.mu.committed || d.mu.aborted {
		return fmt.Errorf("%w: %s", ErrCommitted, d.Location())
	}
	return nil
}

// WriteState writes a state stream read from r to a new file of the
// snapshot directory and returns its handle. A stream of at most
// Options.InlineThreshold bytes is not written at all: its handle carries
// the bytes inline, and an empty stream gives the zero handle. The file is
// named name plus a random suffix, so two attempts never overwrite each
// other; name must be a safe path segment ([A-Za-z0-9._-], at most 200
// bytes, no leading dot). When WriteState returns, the file is durable.
func (d *CheckpointDir) WriteState(ctx context.Context, name string, r io.Reader) (StreamHandle, error) {
	if err := d.checkName(name); err != nil {
		return StreamHandle{}, fmt.Errorf("write state %q: %w", name, err)
	}
	if t := d.s.opts.InlineThreshold; t >= 0 {
		buf := make([]byte, t+1)
		n, err := io.ReadFull(r, buf)
		switch {
		case n == 0 && (err == io.EOF):
			return StreamHandle{}, nil
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			b := buf[:n:n]
			return StreamHandle{Size: int64(n), Inline: b, CRC: crc32.Checksum(b, castagnoli)}, nil
		case err != nil:
			return StreamHandle{}, fmt.Errorf("write state %q: read: %w", name, err)
		}
		r = io.MultiReader(bytes.NewReader(buf), r)
	}
	file, size, sum, err := d.writeFile(ctx, d.dir, name, r)
	if err != nil {
		return StreamHandle{}, fmt.Errorf("write state %q: %w", name, err)
	}
	return StreamHandle{Path: file, Size: size, CRC: sum}, nil
}

// WriteShared writes a file of an incremental backend that later
// checkpoints may reference again, under the backend's key for it (any
// string). For a checkpoint the file goes to the job's shared/ directory
// and its Path is "shared/<name>", which the SharedStateRegistry tracks; it
// is deleted only through DeleteShared. For a savepoint it goes into the
// savepoint's own directory. The name is derived from key plus a random
// suffix, so a file a retained checkpoint references is never overwritten.
// The handle records the size and CRC-32C of what was read from r, computed
// as it streamed, so that a restore detects any damage to the file.
func (d *CheckpointDir) WriteShared(ctx context.Context, key string, r io.Reader) (SharedFile, error) {
	if key == "" {
		return SharedFile{}, fmt.Errorf("write shared file: %w: empty key", ErrInvalid)
	}
	if err := d.checkOpen(); err != nil {
		return SharedFile{}, fmt.Errorf("write shared file %q: %w", key, err)
	}
	dir, prefix := joinKey(d.job, sharedDir), sharedPrefix
	if d.kind == KindSavepoint {
		dir, prefix = d.dir, ""
	}
	file, size, sum, err := d.writeFile(ctx, dir, sanitize(key, 200), r)
	if err != nil {
		return SharedFile{}, fmt.Errorf("write shared file %q: %w", key, err)
	}
	return SharedFile{Key: key, Path: prefix + file, Size: size, CRC: sum, HasCRC: true}, nil
}

// WriteTaskOwned writes a file whose lifetime the task manages itself (as
// Flink's task-owned state): for a checkpoint it goes to the job's
// taskowned/ directory, its handle's Path is "taskowned/<name>", and
// neither Discard nor the SharedStateRegistry ever deletes it. For a
// savepoint it goes into the savepoint's own directory.
func (d *CheckpointDir) WriteTaskOwned(ctx context.Context, name string, r io.Reader) (StreamHandle, error) {
	if err := d.checkName(name); err != nil {
		return StreamHandle{}, fmt.Errorf("write task-owned state %q: %w", name, err)
	}
	dir, prefix := joinKey(d.job, taskOwnedDir), taskOwnedPrefix
	if d.kind == KindSavepoint {
		dir, prefix = d.dir, ""
	}
	file, size, sum, err := d.writeFile(ctx, dir, name, r)
	if err != nil {
		return StreamHandle{}, fmt.Errorf("write task-owned state %q: %w", name, err)
	}
	return StreamHandle{Path: prefix + file, Size: size, CRC: sum}, nil
}

func (d *CheckpointDir) checkName(name string) error {
	if err := checkSegment(name); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if len(name) > 200 {
		return fmt.Errorf("%w: name of %d bytes is longer than 200", ErrInvalid, len(name))
	}
	return d.checkOpen()
}

// writeFile stores r as "<name>-<16 hex>" in dir, returning the file name,
// the size and the CRC-32C of what it wrote.
func (d *CheckpointDir) writeFile(ctx context.Context, dir, name string, r io.Reader) (string, int64, uint32, error) {
	suffix, err := randomHex(d.s.opts.Rand, 8)
	if err != nil {
		return "", 0, 0, err
	}
	file := name + "-" + suffix
	cr := &crcReader{r: r, h: crc32.New(castagnoli)}
	if err := d.store.put(ctx, joinKey(dir, file), cr); err != nil {
		return "", 0, 0, err
	}
	return file, cr.n, cr.h.Sum32(), nil
}

// crcReader counts and checksums what is read through it.
type crcReader struct {
	r io.Reader
	h hash.Hash32
	n int64
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// Commit completes the snapshot: it encodes md (which must name this
// writer's job, checkpoint id and kind, and pass Validate) and writes
// _metadata atomically, after every state file, which the caller must have
// finished writing. It returns the snapshot's location. On error no
// _metadata is left behind (see the package doc for the one exception), so
// the snapshot does not count as completed; the caller may Abort it.
func (d *CheckpointDir) Commit(ctx context.Context, md *Metadata) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	loc := d.Location()
	if d.mu.committed || d.mu.aborted {
		return "", fmt.Errorf("commit %s: %w", loc, ErrCommitted)
	}
	if md.JobID != d.jobID || md.CheckpointID != d.id || md.Kind != d.kind {
		return "", fmt.Errorf("commit %s: %w: metadata is for job %q %v %d, writer for job %q %v %d",
			loc, ErrInvalid, md.JobID, md.Kind, md.CheckpointID, d.jobID, d.kind, d.id)
	}
	b, err := Encode(md)
	if err != nil {
		return "", fmt.Errorf("commit %s: %w", loc, err)
	}
	key := joinKey(d.dir, MetadataFile)
	switch _, err := d.store.size(ctx, key); {
	case err == nil:
		return "", fmt.Errorf("commit %s: %w: %s exists (checkpoint ids must not be reused)", loc, ErrCommitted, MetadataFile)
	case !errors.Is(err, ErrNotFound):
		return "", fmt.Errorf("commit %s: %w", loc, err)
	}
	if err := d.store.put(ctx, key, bytes.NewReader(b)); err != nil {
		return "", fmt.Errorf("commit %s: %w", loc, err)
	}
	d.mu.committed = true
	return loc, nil
}

// Abort deletes what the writer wrote into the snapshot directory, after
// a failed or declined snapshot; later writes fail. Files written with
// WriteShared or WriteTaskOwned into the job's directories are left: a
// later checkpoint may reference them (see SharedStateRegistry). Aborting a
// committed snapshot is an error: use Storage.Discard.
func (d *CheckpointDir) Abort(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	loc := d.Location()
	if d.mu.committed {
		return fmt.Errorf("abort %s: %w", loc, ErrCommitted)
	}
	d.mu.aborted = true
	if err := d.store.removeDir(ctx, d.dir); err != nil {
		return fmt.Errorf("abort %s: %w", loc, err)
	}
	return nil
}
