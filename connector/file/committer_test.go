package file_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
)

// Commit is idempotent: committing again, or after a crash between the
// rename and the directory sync, finds the committed file and succeeds;
// when neither file exists the data is lost and Commit says so.
func TestCommit(t *testing.T) {
	for _, tt := range []struct {
		name string
		// before runs between pre-commit and the Commit under test.
		before  func(t *testing.T, c file.Committable)
		wantErr error
	}{
		{"pending", func(*testing.T, file.Committable) {}, nil},
		{"twice", func(t *testing.T, c file.Committable) { commit(t, c) }, nil},
		{"crash between rename and sync", func(t *testing.T, c file.Committable) {
			if err := os.Rename(c.Pending, c.Final); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"pending file missing", func(t *testing.T, c file.Committable) {
			if err := os.Remove(c.Pending); err != nil {
				t.Fatal(err)
			}
		}, file.ErrMissingFile},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cs := write(t, newWriter(t, dir, info(jobA, 0, 0)), 1, "a", "b")
			tt.before(t, cs[0])
			c, err := file.NewSink(dir, strings.ToUpper).CreateCommitter(context.Background(), weir.SinkContext{})
			if err != nil {
				t.Fatal(err)
			}
			err = c.Commit(context.Background(), cs)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("Commit = %v, want %v (and fs.ErrNotExist)", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), cs[0].Final) {
					t.Errorf("error %q does not name %s", err, cs[0].Final)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := read(t, cs[0].Final); got != "A\nB\n" {
				t.Errorf("committed file holds %q", got)
			}
			if got, want := names(t, dir), []string{filepath.Base(cs[0].Final)}; !slices.Equal(got, want) {
				t.Errorf("directory holds %q, want %q", got, want)
			}
		})
	}
}

// The committer works in the directory of the files it commits, not in
// the sink's: a job restored from a checkpoint of a job with another
// output directory commits the restored files where they are, before its
// own writers created their directory, and creates nothing.
func TestCommitInAnotherDirectory(t *testing.T) {
	old := t.TempDir()
	cs := write(t, newWriter(t, old, info(jobA, 0, 0)), 1, "x")
	newDir := filepath.Join(t.TempDir(), "new")
	c, err := file.NewSink(newDir, strings.ToUpper).CreateCommitter(context.Background(), weir.SinkContext{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(context.Background(), cs); err != nil {
		t.Fatalf("commit into %s with the sink writing into %s: %v", old, newDir, err)
	}
	if got := read(t, cs[0].Final); got != "X\n" {
		t.Errorf("committed file holds %q", got)
	}
	if _, err := os.Stat(newDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the committer created the sink's directory: %v", err)
	}
}

func TestCommitBadInput(t *testing.T) {
	dir := t.TempDir()
	p := touch(t, dir, ".part-x")
	for _, tt := range []struct {
		name string
		c    file.Committable
	}{
		{"empty", file.Committable{}},
		{"no final", file.Committable{Pending: p}},
		{"same file", file.Committable{Pending: p, Final: p}},
		{"other directory", file.Committable{Pending: p, Final: filepath.Join(t.TempDir(), "part-x")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := file.NewSink(dir, strings.ToUpper).CreateCommitter(context.Background(), weir.SinkContext{})
			if err != nil {
				t.Fatal(err)
			}
			err = c.Commit(context.Background(), []file.Committable{tt.c})
			if !errors.Is(err, file.ErrBadCommittable) || !errors.Is(err, weir.ErrUnrecoverable) {
				t.Fatalf("Commit(%+v) = %v, want ErrBadCommittable, unrecoverable", tt.c, err)
			}
			if got := read(t, p); got != "PARTIAL" {
				t.Errorf("the pending file changed: %q", got)
			}
		})
	}
}
