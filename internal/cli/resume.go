package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// RunProgram is what PrepareRun needs to know of the program of a `weir
// run` with a checkpoint directory.
type RunProgram struct {
	// Job is the job's name; Fingerprint the fingerprint of its graph.
	Job, Fingerprint string
	// UIDs are the uids of the program's operators: a checkpoint with
	// state of others is resumed only with --allow-non-restored-state.
	UIDs []string
	// Dir is the checkpoint root; Logger the storage's.
	Dir    string
	Logger *slog.Logger
	// JobID is the new run's job id; Lineage the lineage the program was
	// given ("" for none).
	JobID, Lineage string
}

// RunTracker keeps the run record of one `weir run` with a checkpoint
// directory.
type RunTracker struct {
	st      *storage.Storage
	jobID   string
	rec     runRecord
	resumed string // the checkpoint the run resumes from, if any
}

// RestoreFrom is the checkpoint the run resumes from ("": it starts from
// scratch).
func (t *RunTracker) RestoreFrom() string { return t.resumed }

// Lineage is the run's lineage: the one it was given, else that of the
// unfinished run it goes on after, else its own job id.
func (t *RunTracker) Lineage() string { return t.rec.Lineage }

// PrepareRun decides whether program p resumes an earlier run of its job
// from the checkpoint root p.Dir (see runrecord.go), writes the run's
// record, and returns its tracker, whose RestoreFrom and Lineage the run
// takes. Messages go to stderr.
func PrepareRun(ctx context.Context, p RunProgram, e EngineFlags, stderr io.Writer) (*RunTracker, error) {
	st, err := storage.Open(ctx, p.Dir, storage.Options{Logger: p.Logger})
	if err != nil {
		return nil, fmt.Errorf("checkpoint storage: %w", err)
	}
	t := &RunTracker{st: st, jobID: p.JobID, rec: runRecord{Job: p.Job, Fingerprint: p.Fingerprint, State: runRunning}}
	var prev resumePoint
	if e.FromSavepoint == "" && !e.Fresh {
		prev, err = findResumePoint(ctx, st, p.Job, p.UIDs, e.AllowNonRestored)
		if err != nil {
			st.Close()
			return nil, err
		}
		switch {
		case prev.location != "":
			t.resumed = prev.location
			fmt.Fprintf(stderr, "resuming job %s from %s (the newest checkpoint of its unfinished run; --fresh starts over)\n", p.Job, prev.location)
		case prev.note != "":
			fmt.Fprintln(stderr, prev.note)
		}
	}
	// A run that goes on after an unfinished one is of its lineage, also
	// when that run took no checkpoint: its sinks then clean up what it
	// left.
	t.rec.Lineage = cmp.Or(p.Lineage, prev.lineage, t.jobID)
	t.rec.ResumedFrom = t.resumed
	t.rec.Started = time.Now().UTC()
	if err := t.write(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return t, nil
}

// write stores the run record.
func (t *RunTracker) write(ctx context.Context) error {
	b, err := json.MarshalIndent(t.rec, "", "  ")
	if err != nil {
		return fmt.Errorf("run record: %w", err)
	}
	if err := t.st.WriteJobFile(ctx, t.jobID, runRecordFile, append(b, '\n')); err != nil {
		return fmt.Errorf("run record: %w", err)
	}
	return nil
}

// RunEnd is how a run ended, as Finish records it.
type RunEnd struct {
	// Err is the run's error (nil: it finished).
	Err error
	// Canceled: the run's client canceled it.
	Canceled bool
	// Savepoint is the savepoint a finished run was stopped with;
	// LatestCheckpoint the newest checkpoint the run completed.
	Savepoint, LatestCheckpoint string
}

// Finish records how the run ended and, when it did not finish, says on
// stderr which checkpoint is retained for the next run; it closes the
// storage. ctx is the run's context: its end means the run was
// interrupted.
func (t *RunTracker) Finish(ctx context.Context, end RunEnd, stderr io.Writer) {
	defer t.st.Close()
	runErr := end.Err
	t.rec.Ended = time.Now().UTC()
	switch {
	case runErr == nil:
		t.rec.State = runFinished
		t.rec.Savepoint = end.Savepoint
	case ctx.Err() != nil || end.Canceled:
		t.rec.State, t.rec.Error = runCanceled, runErr.Error()
	default:
		t.rec.State, t.rec.Error = runFailed, runErr.Error()
	}
	// The record is written with a fresh context: the run's may be the
	// one a signal canceled.
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := t.write(wctx); err != nil {
		fmt.Fprintf(stderr, "weir: warning: %v\n", err)
	}
	if runErr == nil {
		return
	}
	latest := cmp.Or(end.LatestCheckpoint, t.resumed)
	how := "ended"
	if sig := Interruption(ctx); sig != "" {
		how = "interrupted by " + sig
	}
	if latest == "" {
		fmt.Fprintf(stderr, "job %s %s %s before its first checkpoint: a new run starts from scratch\n", t.rec.Job, t.jobID, how)
		return
	}
	fmt.Fprintf(stderr, "job %s %s %s; its checkpoint %s is retained: run the same command again to resume from it\n",
		t.rec.Job, t.jobID, how, latest)
}
