package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// runOnce is one weir run of job "seq" with a checkpoint root: PrepareRun,
// then Finish with end; it returns the tracker and what both said.
func runOnce(t *testing.T, dir, jobID string, e EngineFlags, end RunEnd) (*RunTracker, string) {
	t.Helper()
	ctx := context.Background()
	var stderr bytes.Buffer
	p := RunProgram{Job: "seq", Fingerprint: "fp", UIDs: []string{"src", "sink"}, Dir: dir, JobID: jobID}
	tr, err := PrepareRun(ctx, p, e, &stderr)
	if err != nil {
		t.Fatalf("run %s: %v", jobID, err)
	}
	tr.Finish(ctx, end, &stderr)
	return tr, stderr.String()
}

// readRecord reads the run record of job id under dir.
func readRecord(t *testing.T, dir, id string) runRecord {
	t.Helper()
	st, err := storage.Open(context.Background(), dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec, err := readRunRecord(context.Background(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	return *rec
}

// Runs of one job without checkpoints: a failed run is followed by one of
// its lineage that starts from scratch; a run stopped with a savepoint is
// followed by one that starts afresh, of a new lineage, and says where the
// savepoint is; --fresh looks for nothing. Each record says how its run
// ended.
func TestRunRecordsAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	failed := RunEnd{Err: errors.New("boom")}
	steps := []struct {
		jobID       string
		flags       EngineFlags
		end         RunEnd
		wantLineage string
		wantState   string
		wantSaid    []string // substrings of what the run said, in order
	}{
		{"j1", EngineFlags{}, failed, "j1", runFailed,
			[]string{"job seq j1 ended before its first checkpoint: a new run starts from scratch"}},
		{"j2", EngineFlags{}, RunEnd{Canceled: true, Err: errors.New("canceled")}, "j1", runCanceled,
			[]string{"starting job seq from scratch: its unfinished run", "completed no checkpoint", "job seq j2 ended before its first checkpoint"}},
		{"j3", EngineFlags{}, RunEnd{Savepoint: "/sp/savepoint-1"}, "j1", runFinished,
			[]string{"its unfinished run"}},
		{"j4", EngineFlags{}, failed, "j4", runFailed,
			[]string{"was stopped with the savepoint /sp/savepoint-1; resume from it with --from-savepoint /sp/savepoint-1"}},
		{"j5", EngineFlags{Fresh: true}, RunEnd{}, "j5", runFinished, nil},
	}
	for _, s := range steps {
		tr, said := runOnce(t, dir, s.jobID, s.flags, s.end)
		if tr.RestoreFrom() != "" {
			t.Errorf("%s: resumes from %q without a checkpoint", s.jobID, tr.RestoreFrom())
		}
		if tr.Lineage() != s.wantLineage {
			t.Errorf("%s: lineage %q, want %q", s.jobID, tr.Lineage(), s.wantLineage)
		}
		rest := said
		for _, w := range s.wantSaid {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Fatalf("%s said %q, want %q (in order)", s.jobID, said, w)
			}
			rest = rest[i+len(w):]
		}
		if s.wantSaid == nil && said != "" {
			t.Errorf("%s said %q, want nothing", s.jobID, said)
		}
		rec := readRecord(t, dir, s.jobID)
		if rec.State != s.wantState || rec.Job != "seq" || rec.Fingerprint != "fp" || rec.Lineage != s.wantLineage || rec.Ended.IsZero() {
			t.Errorf("%s: record %+v, want state %s, lineage %s, an end", s.jobID, rec, s.wantState, s.wantLineage)
		}
		if s.end.Err != nil && rec.Error != s.end.Err.Error() {
			t.Errorf("%s: record error %q, want %q", s.jobID, rec.Error, s.end.Err)
		}
	}
}

// A run record that does not decode stops the search with an error that
// names --fresh, and nothing is written for the new run.
func TestRunRecordCorrupt(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := storage.Open(ctx, dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.WriteJobFile(ctx, "j1", runRecordFile, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	_, err = PrepareRun(ctx, RunProgram{Job: "seq", Dir: dir, JobID: "j2"}, EngineFlags{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "--fresh starts over") {
		t.Fatalf("PrepareRun over a corrupt record: %v, want an error naming --fresh", err)
	}
	if _, err := st.ReadJobFile(ctx, "j2", runRecordFile); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the refused run wrote a record: %v", err)
	}
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		t.Fatalf("error %v does not wrap the decoding error", err)
	}
}
