package keyed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/state"
)

// The keyed state backend of a keyed operator subtask: created in open,
// restored from a checkpoint's sections and, for Pebble, from the files of
// the old subtasks, and released in close.

var errNativeOnHeap = errors.New("weir: the checkpoint holds Pebble state files, and the job uses the heap state backend; restore with the Pebble backend, or take a savepoint (which is backend-independent) and restore from that")

// openBackend creates the backend the configuration asks for and loads the
// backend files of the restored state, if any.
func (b *keyedBase[K, N]) openBackend(ctx *op.Context) error {
	var native []op.NativeKeyed
	if ctx.Restored != nil {
		native = ctx.Restored.Native
	}
	rg := ctx.KeyGroups
	if b.batch && len(native) == 0 {
		// One key at a time fits on the heap.
		b.backend = state.NewKeyedBackend[K](rg.Start, rg.End)
		return nil
	}
	if !ctx.StateBackend.Pebble {
		if len(native) > 0 {
			// No restart can change the backend: fail the job.
			return fmt.Errorf("%w: %w", scheduler.ErrUnrecoverable, errNativeOnHeap)
		}
		b.backend = state.NewKeyedBackend[K](rg.Start, rg.End)
		return nil
	}
	var err error
	if b.workDir, err = newWorkDir(ctx); err != nil {
		return err
	}
	work := b.workDir.path
	db := filepath.Join(work, "db")
	// The state of the same key groups opens in place: the files become
	// the new database, and an incremental backend goes on sharing them.
	inPlace := len(native) == 1 && native[0].KeyGroupStart == rg.Start && native[0].KeyGroupEnd == rg.End
	b.local = localSlot(ctx)
	if b.local != "" {
		if err := pruneSlots(ctx, b.local); err != nil {
			b.logWarn("remove local state of moved key groups", err)
		}
	}
	if inPlace {
		if dir, ok := localCopy(b.local, ctx.Restored.CheckpointID, native[0].Files); ok {
			// Local recovery: this TaskManager kept the very files.
			if err := linkDir(dir, db); err != nil {
				return fmt.Errorf("restore local state %s: %w", dir, err)
			}
			if ctx.Logger != nil {
				ctx.Logger.Info("restored keyed state from local copy", "checkpoint", ctx.Restored.CheckpointID, "dir", dir)
			}
		} else if err := download(native[0], db); err != nil {
			return err
		}
		b.confirm(native[0])
	}
	if inPlace || len(native) == 0 {
		b.backend, err = state.OpenPebble[K](rg.Start, rg.End, db, ctx.Logger)
		return err
	}
	// After a rescale the old subtasks' databases are downloaded (several
	// at once); the one overlapping this subtask's key groups most becomes
	// its database, clipped to them, and the spans of the others are
	// ingested as SST files (state.RestorePebble).
	srcs := make([]state.PebbleSource, len(native))
	for i, n := range native {
		srcs[i] = state.PebbleSource{Dir: filepath.Join(work, fmt.Sprintf("restore-%d", i)), KeyGroupStart: n.KeyGroupStart, KeyGroupEnd: n.KeyGroupEnd}
	}
	err = forEachLimit(len(native), downloadParallelism, func(i int) error { return download(native[i], srcs[i].Dir) })
	if err != nil {
		return err
	}
	if b.backend, err = state.RestorePebble[K](rg.Start, rg.End, db, srcs, ctx.Logger); err != nil {
		return err
	}
	if base := state.BasePebbleSource(rg.Start, rg.End, srcs); base >= 0 {
		b.confirm(native[base])
	}
	for _, s := range srcs {
		if err := os.RemoveAll(s.Dir); err != nil {
			return fmt.Errorf("remove restored files: %w", err)
		}
	}
	return nil
}

// logWarn logs a failure that does not fail the subtask.
func (b *keyedBase[K, N]) logWarn(msg string, err error) {
	if b.ctx != nil && b.ctx.Logger != nil {
		b.ctx.Logger.Warn(msg, "err", err)
	}
}

// downloadParallelism bounds how many old subtasks' files a restore
// downloads at once.
const downloadParallelism = 4

// confirm makes the shared SST files of n, which the database was opened
// from, files later incremental checkpoints may reference instead of
// uploading them again (when n's checkpoint is this job's own).
func (b *keyedBase[K, N]) confirm(n op.NativeKeyed) {
	if !n.Reusable {
		return
	}
	b.confirmed = map[string]storage.SharedFile{}
	for _, f := range n.Files {
		if strings.HasSuffix(f.Key, ".sst") && f.IsShared() {
			b.confirmed[f.Key] = f
		}
	}
}

// forEachLimit calls fn(0..n-1), at most limit at a time, and returns the
// first error after all calls returned.
func forEachLimit(n, limit int, fn func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// CloseState releases the backend and its hold on the working directory.
func (b *keyedBase[K, N]) CloseState() error {
	var err error
	if b.backend != nil {
		err = b.backend.Close()
	}
	if b.workDir != nil {
		err = errors.Join(err, b.workDir.release())
		b.workDir = nil
	}
	return err
}

// download copies the files of n into dir under their backend names.
func download(n op.NativeKeyed, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("restore state files: %w", err)
	}
	for _, f := range n.Files {
		if f.Key == "" || f.Key != filepath.Base(f.Key) || strings.HasPrefix(f.Key, ".") {
			return fmt.Errorf("restore state files: %w: %w: bad file name %q", scheduler.ErrUnrecoverable, storage.ErrCorrupt, f.Key)
		}
		if err := downloadFile(n, f, filepath.Join(dir, f.Key)); err != nil {
			return err
		}
	}
	return nil
}

// downloadFile copies f to path. The reader checks the file against its
// handle (size, and CRC when recorded) as it reaches the end, so a damaged
// file fails here, before Pebble opens any of them: a file Pebble opened
// damaged could restore wrong state, or fail only later in a compaction
// that retries forever. A file that is missing or damaged stays so, and
// the error is marked unrecoverable, so that no restart loops on it.
func downloadFile(n op.NativeKeyed, f storage.SharedFile, path string) error {
	err := copyFile(n, f, path)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrCorrupt) || errors.Is(err, storage.ErrNotFound):
		return fmt.Errorf("restore state file %s: %w: %w", f.Key, scheduler.ErrUnrecoverable, err)
	default:
		return fmt.Errorf("restore state file %s: %w", f.Key, err)
	}
}

func copyFile(n op.NativeKeyed, f storage.SharedFile, path string) error {
	rc, err := n.Open(context.Background(), f)
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, rc)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// safeName keeps the letters, digits, '-' and '_' of s, for a directory
// name.
func safeName(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r < 128 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			sb.WriteRune(r)
		}
		if sb.Len() >= 24 {
			break
		}
	}
	return sb.String()
}
