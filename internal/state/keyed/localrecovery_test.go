package keyed

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/op"
)

// A Pebble subtask keeps the files of its latest completed checkpoint on
// its TaskManager, and one restored there with the same key groups from
// that same checkpoint opens them instead of downloading: no backend file
// is read from checkpoint storage. Restored from another checkpoint, with
// other key groups, from a damaged copy, or with local recovery off, it
// downloads as before. The state is exact either way.
func TestLocalRecovery(t *testing.T) {
	st, err := storage.Open(context.Background(), t.TempDir(), storage.Options{InlineThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	local := t.TempDir()
	cfg := op.StateBackend{Pebble: true, Incremental: true, LocalRecovery: true, LocalDir: t.TempDir(), LocalRecoveryDir: local}
	off := cfg
	off.LocalRecoveryDir = ""

	var subs []*keyedBase[string, string]
	for i := range 2 {
		subs = append(subs, rescaleSubtask(t, cfg, 2, i, nil))
	}
	want1 := map[string]int64{}
	for i := range 200 {
		k := fmt.Sprint("key-", i)
		want1[k] = int64(i)
		put(t, subs, k, want1[k])
	}
	md1, loc1 := checkpointSubtasks(t, st, subs, 1)
	want2 := maps.Clone(want1)
	for i := 0; i < 260; i += 4 {
		k := fmt.Sprint("key-", i)
		want2[k] = int64(500 + i)
		put(t, subs, k, want2[k])
	}
	md2, loc2 := checkpointSubtasks(t, st, subs, 2)
	// The subtasks fail: their working directories go, their local
	// copies of checkpoint 2 stay.
	for _, b := range subs {
		if err := b.CloseState(); err != nil {
			t.Fatal(err)
		}
	}
	copies, _ := filepath.Glob(filepath.Join(local, "*", "*", "chk-*"))
	if len(copies) != 2 || !strings.HasSuffix(copies[0], "chk-2") {
		t.Fatalf("local copies %v, want checkpoint 2 of 2 subtasks", copies)
	}

	restoreFrom := func(md *storage.Metadata, loc string, cfg op.StateBackend, p int, want map[string]int64) (downloads int64) {
		t.Helper()
		var opens atomic.Int64
		subs := restoreCounting(t, st, md, loc, cfg, p, &opens)
		checkCounts(t, subs, want)
		for _, b := range subs {
			if err := b.CloseState(); err != nil {
				t.Fatal(err)
			}
		}
		return opens.Load()
	}
	if n := restoreFrom(md2, loc2, cfg, 2, want2); n != 0 {
		t.Fatalf("restored checkpoint 2 where its copy is: %d files downloaded, want 0", n)
	}
	if n := restoreFrom(md1, loc1, cfg, 2, want1); n == 0 {
		t.Fatal("restored checkpoint 1 from the local copy of checkpoint 2")
	}
	if n := restoreFrom(md2, loc2, off, 2, want2); n == 0 {
		t.Fatal("restored from a local copy with local recovery off")
	}

	// The restored subtasks go on keeping copies: checkpoint 3 replaces 2.
	subs = restoreSubtasks(t, st, md2, loc2, cfg, 2)
	want3 := maps.Clone(want2)
	put(t, subs, "key-1", 7777)
	want3["key-1"] = 7777
	md3, loc3 := checkpointSubtasks(t, st, subs, 3)
	for _, b := range subs {
		if err := b.CloseState(); err != nil {
			t.Fatal(err)
		}
	}
	if n := restoreFrom(md3, loc3, cfg, 2, want3); n != 0 {
		t.Fatalf("restored checkpoint 3 where its copy is: %d files downloaded, want 0", n)
	}
	if old, _ := filepath.Glob(filepath.Join(local, "*", "*", "chk-2")); len(old) != 0 {
		t.Fatalf("copies of checkpoint 2 left after 3 completed: %v", old)
	}

	// A copy missing a file is not used.
	copies, _ = filepath.Glob(filepath.Join(local, "*", "*", "chk-3", "*.sst"))
	if len(copies) == 0 {
		t.Fatal("no SST file in the local copies")
	}
	if err := os.Remove(copies[0]); err != nil {
		t.Fatal(err)
	}
	if n := restoreFrom(md3, loc3, cfg, 2, want3); n == 0 {
		t.Fatal("restored from a local copy that lacks a file")
	}

	// Key groups that moved restore from checkpoint storage, and the
	// copies of the ranges they overlap are dropped.
	if n := restoreFrom(md3, loc3, cfg, 3, want3); n == 0 {
		t.Fatal("restored at another parallelism from local copies")
	}
	if left, _ := filepath.Glob(filepath.Join(local, "*", "*", "chk-*")); len(left) != 0 {
		t.Fatalf("copies of moved key groups left: %v", left)
	}
}

// A local copy is used only for the checkpoint id it records and only
// when it holds exactly the handle's files with their sizes.
func TestLocalCopyMatches(t *testing.T) {
	slot := t.TempDir()
	dir := filepath.Join(slot, "chk-2")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := []storage.SharedFile{{Key: "000004.sst", Size: 5}, {Key: "MANIFEST-000001", Size: 3}}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Key), make([]byte, f.Size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name  string
		slot  string
		id    int64
		files []storage.SharedFile
		ok    bool
	}{
		{"same checkpoint and files", slot, 2, files, true},
		{"another checkpoint", slot, 1, files, false},
		{"local recovery off", "", 2, files, false},
		{"a file of another size", slot, 2, []storage.SharedFile{files[0], {Key: "MANIFEST-000001", Size: 4}}, false},
		{"a file more in the handle", slot, 2, append(files[:2:2], storage.SharedFile{Key: "000005.sst", Size: 1}), false},
		{"a file less in the handle", slot, 2, files[:1], false},
	} {
		if _, ok := localCopy(tt.slot, tt.id, tt.files); ok != tt.ok {
			t.Errorf("%s: used = %v, want %v", tt.name, ok, tt.ok)
		}
	}
}
