package file_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
)

// Part files are named part-<uid>-<job id's first 8 characters>-<subtask>-
// <attempt>-<n>, pending with a leading dot, numbered per writer.
func TestPartFileNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		info weir.SinkContext
		want []string
	}{
		{"plain", info(jobA, 1, 0), []string{"part-sink-aaaaaaaa-1-0-0", "part-sink-aaaaaaaa-1-0-1"}},
		{"restarted", info(jobA, 0, 3), []string{"part-sink-aaaaaaaa-0-3-0", "part-sink-aaaaaaaa-0-3-1"}},
		{"uid with separators", weir.SinkContext{JobID: "0123456789", OperatorUID: "a/b.c-d", SubtaskIndex: 2},
			[]string{"part-a_b_c-d-01234567-2-0-0", "part-a_b_c-d-01234567-2-0-1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w := newWriter(t, dir, tt.info)
			var got []string
			for id := int64(1); id <= 2; id++ {
				cs := write(t, w, id, "x")
				if len(cs) != 1 {
					t.Fatalf("checkpoint %d: %d committables, want 1", id, len(cs))
				}
				c := cs[0]
				if filepath.Dir(c.Final) != dir || filepath.Dir(c.Pending) != dir {
					t.Errorf("committable %+v is not in %s", c, dir)
				}
				// Pending: hidden, and the lineage's root after a dot (a
				// fresh job is its own root).
				if want := "." + filepath.Base(c.Final) + "." + shortID(tt.info.JobID); filepath.Base(c.Pending) != want {
					t.Errorf("pending %s, want %s", filepath.Base(c.Pending), want)
				}
				got = append(got, filepath.Base(c.Final))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("names %q, want %q", got, tt.want)
			}
		})
	}
}

// A relative output directory gives absolute paths, so that a job restored
// in another working directory finds the files.
func TestCommittablesAreAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	w := newWriter(t, "out", info(jobA, 0, 0))
	c := write(t, w, 1, "x")[0]
	if !filepath.IsAbs(c.Pending) || !filepath.IsAbs(c.Final) {
		t.Errorf("committable %+v has a relative path", c)
	}
}

// The writer opens a part file at the first element after a checkpoint,
// never before: a subtask that gets nothing more (as after a savepoint
// barrier, or at the end of input) creates no file.
func TestWriterOpensPartFilesLazily(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	w := newWriter(t, dir, info(jobA, 0, 0))
	if err := w.Flush(ctx, true); err != nil {
		t.Fatal(err)
	}
	if cs, err := w.PrepareCommit(ctx, 1); err != nil || cs != nil {
		t.Fatalf("PrepareCommit with nothing written = %v, %v; want nothing", cs, err)
	}
	if n := names(t, dir); len(n) != 0 {
		t.Fatalf("files before any element: %q", n)
	}
	cs := write(t, w, 2, "a", "b")
	if err := w.Flush(ctx, true); err != nil {
		t.Fatal(err)
	}
	if cs2, err := w.PrepareCommit(ctx, 3); err != nil || cs2 != nil {
		t.Fatalf("PrepareCommit after a checkpoint with nothing new = %v, %v", cs2, err)
	}
	if got, want := names(t, dir), []string{filepath.Base(cs[0].Pending)}; !slices.Equal(got, want) {
		t.Errorf("after the checkpoint: %q, want only %q", got, want)
	}
	if got := read(t, cs[0].Pending); got != "A\nB\n" {
		t.Errorf("pre-committed file holds %q", got)
	}
}

// A writer that is closed without a checkpoint (a cancel, a failure)
// removes the file it had open; the files it pre-committed stay for a
// restored job to commit.
func TestCloseRemovesTheOpenFile(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	w, err := file.NewSink(dir, strings.ToUpper).CreateWriter(ctx, info(jobA, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	cs := write(t, w, 1, "kept")
	if err := w.Write(ctx, "lost"); err != nil {
		t.Fatal(err)
	}
	if n := names(t, dir); len(n) != 2 {
		t.Fatalf("before close: %q, want the pre-committed and the open file", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, dir), []string{filepath.Base(cs[0].Pending)}; !slices.Equal(got, want) {
		t.Errorf("after close: %q, want %q", got, want)
	}
}

func TestCreateWriterBadInput(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	restored := func(states ...string) weir.SinkContext {
		ci := info(jobA, 0, 0)
		ci.RestoredFromID = 3
		for _, s := range states {
			ci.RestoredWriterStates = append(ci.RestoredWriterStates, []byte(s))
		}
		return ci
	}
	for _, tt := range []struct {
		name string
		sink *file.Sink[string]
		info weir.SinkContext
		want string
	}{
		{"no directory", file.NewSink("", strings.ToUpper), info(jobA, 0, 0), "Dir and Format must be set"},
		{"no format", file.NewSink[string](t.TempDir(), nil), info(jobA, 0, 0), "Dir and Format must be set"},
		{"directory is a file", file.NewSink(notDir, strings.ToUpper), info(jobA, 0, 0), "not a directory"},
		{"state not JSON", file.NewSink(t.TempDir(), strings.ToUpper), restored("\x00garbage"), "restored writer state 0"},
		{"state with relative dir", file.NewSink(t.TempDir(), strings.ToUpper),
			restored(`{"dir":"out","job":"aaaaaaaa","next":1}`), "not one this sink wrote"},
		{"state with negative count", file.NewSink(t.TempDir(), strings.ToUpper),
			restored(`{"dir":"/tmp","job":"aaaaaaaa","next":-1}`), "not one this sink wrote"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, err := tt.sink.CreateWriter(context.Background(), tt.info)
			if err == nil {
				w.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if restored := tt.info.RestoredWriterStates != nil; errors.Is(err, weir.ErrUnrecoverable) != restored {
				t.Errorf("error %q: unrecoverable is %v, want %v (a restart meets restored state again)", err, !restored, restored)
			}
		})
	}
}

// shortID is the part of a job id that file names carry.
func shortID(job string) string { return job[:min(8, len(job))] }
