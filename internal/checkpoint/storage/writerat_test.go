package storage_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// A task's writer at the location the JobMaster chose writes where the
// JobMaster's own writer of that snapshot would: state files in the
// snapshot directory, shared files in the job's shared/ (checkpoints) or
// in the savepoint; the JobMaster's Commit then makes it complete and the
// task's handles read back.
func TestWriterAtWritesIntoTheJobMastersSnapshot(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []storage.Kind{storage.KindCheckpoint, storage.KindSavepoint} {
		t.Run(kind.String(), func(t *testing.T) {
			st := open(t, t.TempDir(), storage.Options{InlineThreshold: -1})
			var jm *storage.CheckpointDir
			var err error
			if kind == storage.KindCheckpoint {
				jm, err = st.CreateCheckpointWriter(testJob, 7)
			} else {
				jm, err = st.CreateSavepointWriter(ctx, testJob, 7, "")
			}
			if err != nil {
				t.Fatal(err)
			}
			task, err := st.WriterAt(ctx, testJob, 7, kind, jm.Location())
			if err != nil {
				t.Fatal(err)
			}
			if task.Location() != jm.Location() {
				t.Fatalf("task writes to %s, the JobMaster's writer to %s", task.Location(), jm.Location())
			}
			h, err := task.WriteState(ctx, "keyed", bytes.NewReader([]byte("state")))
			if err != nil {
				t.Fatal(err)
			}
			f, err := task.WriteShared(ctx, "uid/1/000001.sst", bytes.NewReader([]byte("sst")))
			if err != nil {
				t.Fatal(err)
			}
			if f.IsShared() != (kind == storage.KindCheckpoint) {
				t.Errorf("shared file at %q: shared = %v for a %v", f.Path, f.IsShared(), kind)
			}
			md := &storage.Metadata{JobID: testJob, CheckpointID: 7, Kind: kind, Operators: []storage.OperatorState{{
				UID: "op", Parallelism: 1, MaxParallelism: 1, Subtasks: []storage.SubtaskState{{Keyed: []storage.KeyedStateHandle{{
					KeyGroupStart: 0, KeyGroupEnd: 0, Offsets: []int64{0}, Stream: h, Shared: []storage.SharedFile{f},
				}}}},
			}}}
			loc, err := jm.Commit(ctx, md)
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.ReadVerified(ctx, loc)
			if err != nil {
				t.Fatalf("the committed snapshot does not verify: %v", err)
			}
			rc, err := st.ReadState(ctx, loc, got.Operators[0].Subtasks[0].Keyed[0].Stream)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			if b, err := io.ReadAll(rc); err != nil || string(b) != "state" {
				t.Fatalf("read back %q, %v", b, err)
			}
		})
	}
}

func TestWriterAtRefusesWrongLocations(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), storage.Options{})
	chk, err := st.CreateCheckpointWriter(testJob, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		job      string
		id       int64
		kind     storage.Kind
		location string
	}{
		{"another checkpoint's directory", testJob, 4, storage.KindCheckpoint, chk.Location()},
		{"a checkpoint taken for a savepoint", testJob, 3, storage.KindSavepoint, chk.Location()},
		{"no kind", testJob, 3, 0, chk.Location()},
		{"a bad job id", "../x", 3, storage.KindCheckpoint, chk.Location()},
		{"no location", testJob, 3, storage.KindCheckpoint, ""},
	} {
		if _, err := st.WriterAt(ctx, tt.job, tt.id, tt.kind, tt.location); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", tt.name, err)
		}
	}
}

// DiscardUnfinished deletes a snapshot directory without _metadata and
// nothing outside it; a completed snapshot stays.
func TestDiscardUnfinished(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st := open(t, root, storage.Options{InlineThreshold: -1})
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(root, testJob, p))
		return err == nil
	}
	write := func(id int64) (*storage.CheckpointDir, storage.StreamHandle, storage.SharedFile) {
		dir, err := st.CreateCheckpointWriter(testJob, id)
		if err != nil {
			t.Fatal(err)
		}
		h, err := dir.WriteState(ctx, "keyed", bytes.NewReader([]byte("state")))
		if err != nil {
			t.Fatal(err)
		}
		f, err := dir.WriteShared(ctx, "uid/1/000001.sst", bytes.NewReader([]byte("sst")))
		if err != nil {
			t.Fatal(err)
		}
		return dir, h, f
	}

	dir, h, f := write(9)
	if !exists(filepath.Join("chk-9", h.Path)) {
		t.Fatalf("the state file is not where the test looks (%+v)", h)
	}
	for range 2 { // the second finds nothing, which is no error
		if err := st.DiscardUnfinished(ctx, dir.Location()); err != nil {
			t.Fatal(err)
		}
	}
	if exists("chk-9") {
		t.Error("the unfinished checkpoint's directory stayed")
	}
	if !exists(f.Path) {
		t.Errorf("shared file %s deleted: it is the registry's", f.Path)
	}

	done, h, _ := write(10)
	md := &storage.Metadata{JobID: testJob, CheckpointID: 10, Kind: storage.KindCheckpoint}
	if _, err := done.Commit(ctx, md); err != nil {
		t.Fatal(err)
	}
	if err := st.DiscardUnfinished(ctx, done.Location()); !errors.Is(err, storage.ErrCommitted) {
		t.Errorf("discard of a completed checkpoint: err = %v, want ErrCommitted", err)
	}
	if !exists(filepath.Join("chk-10", h.Path)) || !exists(filepath.Join("chk-10", storage.MetadataFile)) {
		t.Error("a completed checkpoint lost files")
	}
	if err := st.DiscardUnfinished(ctx, filepath.Join(root, testJob)); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("discard of the job directory: err = %v, want ErrInvalid", err)
	}
}
