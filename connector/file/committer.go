package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/weir-engine/weir"
)

// ErrMissingFile is the cause of a failed Commit when neither the pending
// file of a committable nor its committed file exists: the data is lost
// (removed by hand, or written on another machine). No retry brings it
// back; errors.Is matches it with fs.ErrNotExist too, which fails the job
// at once.
var ErrMissingFile error = missingFile{}

type missingFile struct{}

func (missingFile) Error() string {
	return "file sink: neither the pending nor the committed file exists"
}

func (missingFile) Is(target error) bool { return target == fs.ErrNotExist }

// ErrBadCommittable is the cause of a failed Commit of a committable that
// no writer of this package makes: an empty path, or the pending and the
// committed file in different directories. The checkpoint holds it, so a
// restart meets it again: errors.Is matches it with weir.ErrUnrecoverable.
var ErrBadCommittable error = badCommittable{}

type badCommittable struct{}

func (badCommittable) Error() string { return "file sink: bad committable" }

func (badCommittable) Is(target error) bool { return target == weir.ErrUnrecoverable }

// committer renames pending files to their committed names. It holds no
// directory of its own: a restored job may commit files its writers never
// wrote into (a checkpoint of a job with another output directory).
type committer struct{}

// Commit renames every pending file, then syncs each directory that holds
// one. A committable whose pending file is gone and whose committed file
// exists was committed before; its directory is synced again, since the
// earlier commit may have ended between the rename and the sync.
func (committer) Commit(_ context.Context, cs []Committable) error {
	var dirs []string
	for _, c := range cs {
		if err := c.validate(); err != nil {
			return err
		}
		if err := commit(c); err != nil {
			return err
		}
		if d := filepath.Dir(c.Final); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

func (committer) Close() error { return nil }

func (c Committable) validate() error {
	switch {
	case c.Pending == "" || c.Final == "":
		return fmt.Errorf("%w %+v: empty path", ErrBadCommittable, c)
	case filepath.Clean(c.Pending) == filepath.Clean(c.Final):
		return fmt.Errorf("%w %+v: pending and committed file are the same", ErrBadCommittable, c)
	case filepath.Dir(c.Pending) != filepath.Dir(c.Final):
		return fmt.Errorf("%w %+v: pending and committed file in different directories", ErrBadCommittable, c)
	}
	return nil
}

func commit(c Committable) error {
	err := os.Rename(c.Pending, c.Final)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(c.Final); serr == nil {
			return nil // committed before
		} else if !errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("file sink: commit %s: %w", c.Final, serr)
		}
		return fmt.Errorf("%w: commit %s (pending %s)", ErrMissingFile, c.Final, c.Pending)
	}
	if err != nil {
		return fmt.Errorf("file sink: commit %s: %w", c.Final, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("file sink: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("file sink: sync %s: %w", dir, err)
	}
	return nil
}
