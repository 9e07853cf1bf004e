package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path"
)

// localStore keeps objects as files of an FS. A key is an absolute path
// without its leading slash.
//
// Durability: put writes a temporary file next to the target, syncs it,
// renames it over the target and syncs the directory, so the object is
// either absent or complete and durable, also across a crash. Directories
// are created one level at a time, each creation made durable by syncing
// its parent. Temporary files start with a dot; readers never reference
// them and Discard removes them with the rest of a snapshot directory.
type localStore struct {
	fs   FS
	rand io.Reader
	log  *slog.Logger
}

func (l *localStore) path(key string) string { return "/" + key }

func (l *localStore) locate(key string) string { return l.path(key) }

func (l *localStore) close() error { return nil }

func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// ensureDir creates dir and its missing parents durably.
func (l *localStore) ensureDir(dir string) error {
	if _, isDir, err := l.fs.Stat(l.path(dir)); err == nil {
		if !isDir {
			return fmt.Errorf("%s is not a directory", l.path(dir))
		}
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("stat %s: %w", l.path(dir), err)
	}
	parent, _ := splitKey(dir)
	if err := l.ensureDir(parent); err != nil {
		return err
	}
	if err := l.fs.Mkdir(l.path(dir)); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("mkdir %s: %w", l.path(dir), err)
	}
	if err := l.fs.SyncDir("/" + parent); err != nil {
		return fmt.Errorf("sync dir %s: %w", "/"+parent, err)
	}
	return nil
}

func (l *localStore) put(ctx context.Context, key string, r io.Reader) (err error) {
	dir, base := splitKey(key)
	if err := l.ensureDir(dir); err != nil {
		return err
	}
	suffix, err := randomHex(l.rand, 8)
	if err != nil {
		return err
	}
	tmp := l.path(dir) + "/." + base + ".tmp-" + suffix
	f, err := l.fs.Create(tmp)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	renamed := false
	defer func() {
		if f != nil {
			_ = f.Close() // the write already failed
		}
		if err != nil && !renamed {
			if rerr := l.fs.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				l.log.Warn("checkpoint storage: cannot remove temporary file", "path", tmp, "err", rerr)
			}
		}
	}()
	if _, err := io.Copy(f, ctxReader{ctx, r}); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	cerr := f.Close()
	f = nil
	if cerr != nil {
		return fmt.Errorf("close %s: %w", tmp, cerr)
	}
	if err := l.fs.Rename(tmp, l.path(key)); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, l.path(key), err)
	}
	renamed = true
	if err := l.fs.SyncDir(l.path(dir)); err != nil {
		// The rename may or may not survive a crash. Take the object
		// back so that a failed put never leaves it visible: for
		// _metadata this is what keeps a failed Commit from counting
		// as a complete checkpoint.
		if rerr := l.fs.Remove(l.path(key)); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			l.log.Warn("checkpoint storage: cannot remove file after failed directory sync",
				"path", l.path(key), "err", rerr)
		}
		return fmt.Errorf("sync dir %s: %w", l.path(dir), err)
	}
	return nil
}

func (l *localStore) get(ctx context.Context, key string) (io.ReadCloser, error) {
	f, err := l.fs.Open(l.path(key))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", l.path(key), notFound(err))
	}
	return f, nil
}

// getRange seeks where the file can, and otherwise reads past the bytes
// before off (an FS of tests may not seek).
func (l *localStore) getRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	f, err := l.get(ctx, key)
	if err != nil {
		return nil, err
	}
	if sk, ok := f.(io.Seeker); ok {
		_, err = sk.Seek(off, io.SeekStart)
	} else {
		_, err = io.CopyN(io.Discard, f, off)
		if err == io.EOF {
			err = nil // the range reader reports the short file
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("seek %s to %d: %w", l.path(key), off, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(f, n), f}, nil
}

func (l *localStore) size(ctx context.Context, key string) (int64, error) {
	n, isDir, err := l.fs.Stat(l.path(key))
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", l.path(key), notFound(err))
	}
	if isDir {
		return 0, fmt.Errorf("%s is a directory", l.path(key))
	}
	return n, nil
}

func (l *localStore) list(ctx context.Context, dir string) ([]string, error) {
	names, err := l.fs.ReadDir(l.path(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read dir %s: %w", l.path(dir), err)
	}
	return names, nil
}

func (l *localStore) remove(ctx context.Context, key string) error {
	if err := l.fs.Remove(l.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", l.path(key), err)
	}
	return nil
}

// removeDir removes the files of dir, then dir, then syncs its parent.
// Snapshot directories are flat, so it does not recurse.
func (l *localStore) removeDir(ctx context.Context, dir string) error {
	if _, _, err := l.fs.Stat(l.path(dir)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	names, err := l.list(ctx, dir)
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := l.remove(ctx, path.Join(dir, name)); err != nil {
			return err
		}
	}
	if err := l.remove(ctx, dir); err != nil {
		return err
	}
	parent, _ := splitKey(dir)
	if err := l.fs.SyncDir("/" + parent); err != nil {
		return fmt.Errorf("sync dir %s: %w", "/"+parent, err)
	}
	return nil
}
