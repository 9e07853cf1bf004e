package cluster

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest/api"
)

// A record written to the store reads back whole; writing it again
// replaces it and leaves no temporary file; a temporary file left by a
// write that crashed before its rename is not a record; a removed record
// is gone; a record that does not decode is an error naming its file.
func TestHAStoreRoundTrip(t *testing.T) {
	root := t.TempDir()
	s, err := openHAStore(root)
	if err != nil {
		t.Fatal(err)
	}
	id := newJobID()
	r := &haRecord{ID: id, Run: id, State: haRunning,
		Submission: api.JobSubmission{Job: "sequence", Args: []string{"--keys", "2"}, Options: api.EngineOptions{CheckpointInterval: "100ms"}}}
	if err := s.put(r); err != nil {
		t.Fatal(err)
	}
	r.Checkpoint = &haCheckpoint{Run: id, ID: 7, Location: "/c/" + id + "/chk-7"}
	if err := s.put(r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "."+id+".json.tmp-123"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.list()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Checkpoint == nil || got[0].Checkpoint.ID != 7 || got[0].Submission.Args[1] != "2" {
		t.Fatalf("list: %+v, want the record with checkpoint 7", got)
	}
	entries, _ := os.ReadDir(s.dir)
	if len(entries) != 2 {
		t.Errorf("files %v: want the record and the crashed write's temporary file only", entries)
	}
	if err := s.remove(id); err != nil {
		t.Fatal(err)
	}
	if got, err := s.list(); err != nil || len(got) != 0 {
		t.Errorf("after remove: %v, %v", got, err)
	}
	bad := newJobID()
	if err := os.WriteFile(s.path(bad), []byte(`{"id": "`+bad+`", "run":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.list(); err == nil || !strings.Contains(err.Error(), s.path(bad)) {
		t.Errorf("list of a truncated record: %v, want an error naming it", err)
	}
	if err := s.put(&haRecord{ID: "../x"}); err == nil {
		t.Error("put of a record with a bad id succeeded")
	}
}

// Where a recovered job starts: without checkpoints, where its run
// started; with checkpoints but none completed by its run, also there; a
// run whose recorded checkpoint is missing from its directory is refused
// rather than rolled back.
func TestHARestorePoint(t *testing.T) {
	h := newHA(&haStore{dir: t.TempDir()}, slog.New(slog.DiscardHandler))
	run := newJobID()
	cps := t.TempDir()
	for _, tt := range []struct {
		name    string
		r       haRecord
		want    string
		wantErr string
	}{
		{"no checkpoints", haRecord{Run: run, RestoredFrom: "/sp/savepoint-1"}, "/sp/savepoint-1", ""},
		{"no checkpoint completed", haRecord{Run: run, RestoredFrom: "/c/old/chk-4",
			Submission: api.JobSubmission{Options: api.EngineOptions{CheckpointInterval: "1s", CheckpointDir: cps}}}, "/c/old/chk-4", ""},
		{"recorded checkpoint missing", haRecord{Run: run, Checkpoint: &haCheckpoint{Run: run, ID: 3, Location: cps + "/" + run + "/chk-3"},
			Submission: api.JobSubmission{Options: api.EngineOptions{CheckpointInterval: "1s", CheckpointDir: cps}}}, "", "checkpoint 3 of run"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h.restorePoint(context.Background(), &tt.r)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
