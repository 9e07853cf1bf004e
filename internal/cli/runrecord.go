package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// Resuming `weir run` after a crash. Running the same command again after
// the process was killed (SIGKILL, a crash, the machine going down) or
// interrupted (Ctrl-C, SIGTERM), or after the job failed, continues the job
// from the newest complete checkpoint it left in --checkpoint-dir, so that
// the output of both runs together is exactly-once, instead of starting
// from scratch and writing everything a second time.
//
// To tell which job directory of the checkpoint root belongs to the same
// job, every run with --checkpoint-dir keeps a run record, the job file
// _run of its job directory (JSON: the job's name, the fingerprint of its
// graph, its state, when it started and ended). A run looks for the record
// of its job's name that started last:
//
//   - none, or that run FINISHED (stopped with a savepoint too; the message
//     names the savepoint to resume from with --from-savepoint): the job
//     starts from scratch, with a new job id;
//   - that run did not finish (killed, interrupted, failed) and left a
//     complete checkpoint (storage.LatestCompleted: _metadata decodes,
//     names the job and is complete, every file it references is there):
//     the job restores from it, with a new job id, and says so on stderr
//     ("resuming job sequence from C/<job>/chk-17"). The checkpoint must
//     hold state only for operators the program has (their uids), unless
//     --allow-non-restored-state;
//   - that run left no complete checkpoint but had resumed from one: the
//     job resumes from that one again (it is still there: nothing deletes
//     the checkpoints of another job id);
//   - that run left no complete checkpoint and had started from scratch:
//     it committed nothing, and the job starts from scratch.
//
// A resumed run takes a new job id rather than the old one's: connectors
// name their files and transactions after the job id and the attempt, and
// a second run under the same id would reuse those names (the file sink
// would commit over the first run's part files).
//
// --fresh skips the search (the new run's record then is the one that
// started last); --from-savepoint replaces it. A finished job's checkpoints
// are not deleted, as the engine's API leaves them to the caller; its
// record only keeps them from being resumed.

// runRecordFile is the name of the run record among a job's files.
const runRecordFile = "_run"

// runRecord is the content of a run record.
type runRecord struct {
	Job         string    `json:"job"`
	Fingerprint string    `json:"fingerprint"`
	State       string    `json:"state"` // RUNNING, FINISHED, CANCELED or FAILED
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended,omitzero"`
	// Savepoint is the savepoint a FINISHED run was stopped with.
	Savepoint string `json:"savepoint,omitempty"`
	// Error is why a FAILED or CANCELED run ended.
	Error string `json:"error,omitempty"`
	// ResumedFrom is the checkpoint the run started from, if it resumed.
	ResumedFrom string `json:"resumedFrom,omitempty"`
	// Lineage is the run's lineage (weir's Options.Lineage): the first
	// run of the chain of unfinished runs it continues (absent in older
	// records: the run's own id).
	Lineage string `json:"lineage,omitempty"`
}

// Run states in a run record: the JobClient's, as Flink names them.
const (
	runRunning  = "RUNNING"
	runFinished = "FINISHED"
	runCanceled = "CANCELED"
	runFailed   = "FAILED"
)

// resumePoint is what findResumePoint found: the checkpoint to resume
// from, or a note why the job starts from scratch.
type resumePoint struct {
	location string
	note     string
	// lineage is the lineage of the unfinished run the job goes on after.
	lineage string
}

// findResumePoint looks for the checkpoint to resume job name from (see
// the comment at the top of the file).
func findResumePoint(ctx context.Context, st *storage.Storage, name string, uids []string, allowNonRestored bool) (resumePoint, error) {
	ids, err := st.JobIDs(ctx)
	if err != nil {
		return resumePoint{}, fmt.Errorf("look for an earlier run of %s: %w", name, err)
	}
	var last *runRecord
	var lastID string
	for _, id := range ids {
		rec, err := readRunRecord(ctx, st, id)
		if errors.Is(err, storage.ErrNotFound) {
			continue // not a job directory of weir run (a savepoint directory, an API user's job)
		}
		if err != nil {
			return resumePoint{}, fmt.Errorf("look for an earlier run of %s: %w (--fresh starts over)", name, err)
		}
		if rec.Job == name && (last == nil || rec.Started.After(last.Started)) {
			last, lastID = rec, id
		}
	}
	switch {
	case last == nil:
		return resumePoint{}, nil
	case last.State == runFinished && last.Savepoint != "":
		return resumePoint{note: fmt.Sprintf("starting job %s from scratch: its last run (%s) was stopped with the savepoint %s; resume from it with --from-savepoint %[3]s",
			name, st.JobLocation(lastID), last.Savepoint)}, nil
	case last.State == runFinished:
		return resumePoint{note: fmt.Sprintf("starting job %s from scratch: its last run (%s) finished", name, st.JobLocation(lastID))}, nil
	}
	lineage := cmp.Or(last.Lineage, lastID)
	md, loc, err := st.LatestCompleted(ctx, lastID)
	switch {
	case errors.Is(err, storage.ErrNoCheckpoint) && last.ResumedFrom != "":
		// The run completed no checkpoint of its own: what it committed
		// came from the one it resumed from, which is where to go on.
		loc = last.ResumedFrom
		if md, err = st.ReadVerified(ctx, loc); err != nil {
			return resumePoint{}, fmt.Errorf("resume job %s from %s, where its unfinished run (%s) started: %w (--fresh starts over)",
				name, loc, st.JobLocation(lastID), err)
		}
	case errors.Is(err, storage.ErrNoCheckpoint):
		// The run completed no checkpoint, so its sinks committed nothing.
		return resumePoint{lineage: lineage, note: fmt.Sprintf("starting job %s from scratch: its unfinished run (%s) completed no checkpoint", name, st.JobLocation(lastID))}, nil
	case err != nil:
		return resumePoint{}, fmt.Errorf("resume job %s from its unfinished run: %w (--fresh starts over)", name, err)
	}
	var unknown []string
	for _, op := range md.Operators {
		if !slices.Contains(uids, op.UID) {
			unknown = append(unknown, op.UID)
		}
	}
	if len(unknown) > 0 && !allowNonRestored {
		return resumePoint{}, Usage(fmt.Errorf("resume job %s from %s: it holds state of operators %s that this program does not have: "+
			"--allow-non-restored-state (-n) drops it, --fresh starts over", name, loc, strings.Join(unknown, ", ")))
	}
	return resumePoint{location: loc, lineage: lineage}, nil
}

// readRunRecord reads the run record of job id.
func readRunRecord(ctx context.Context, st *storage.Storage, id string) (*runRecord, error) {
	b, err := st.ReadJobFile(ctx, id, runRecordFile)
	if err != nil {
		return nil, err
	}
	var rec runRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("run record of %s: %w", st.JobLocation(id), err)
	}
	return &rec, nil
}
