package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/rest/api"
	"github.com/weir-engine/weir/internal/scheduler"
)

// JobManager high availability: the Dispatcher keeps every job it runs in
// the HA store (hastore.go) and a JobManager that starts recovers the jobs
// its store says are RUNNING.
//
// A recovered job goes on from its latest completed checkpoint as a new
// run: a new run id (the job's checkpoints, part files and transactions
// are named after the run, and checkpoint ids and attempts start again in
// a new run, so reusing the id would collide with what the dead run
// wrote), in the lineage of the checkpoint it restores, so that its sinks
// clean up what the dead run wrote after that checkpoint. Its clients
// keep seeing the id it was submitted under.
//
// The latest completed checkpoint is the newest of the run's checkpoint
// directory that is complete (storage.LatestCompleted), never older than
// the one the record points at: that pointer is written before the tasks
// learn that a checkpoint completed, and so before any sink commits what
// it covers, and going back before it would write committed output again.
// A run that completed no checkpoint starts again from where it started.

// Launch is how the Dispatcher starts one run of a job.
type Launch struct {
	// JobID is the run's job id.
	JobID string
	// Lineage is the lineage the run continues ("": its own id, or the
	// lineage of the snapshot it restores; see weir.Options.Lineage).
	Lineage string
	// Datasets is the session cluster's table of cached datasets, which
	// the run's cached streams read when complete.
	Datasets cache.ClusterDatasets
}

// newJobID returns a random job id: 32 lower-case hex characters.
func newJobID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ha is the Dispatcher's view of its HA store: the records of the jobs it
// runs, by id and by the id of their current run.
type ha struct {
	store *haStore
	log   *slog.Logger
	mu    sync.Mutex
	jobs  map[string]*haRecord // by id
	runs  map[string]*haRecord // by run id
}

func newHA(store *haStore, log *slog.Logger) *ha {
	return &ha{store: store, log: log, jobs: map[string]*haRecord{}, runs: map[string]*haRecord{}}
}

// submitted records a new job before it starts.
func (h *ha) submitted(id string, s api.JobSubmission) error {
	r := &haRecord{ID: id, Run: id, Submission: s, State: haRunning, RestoredFrom: s.Options.FromSavepoint}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.store.put(r); err != nil {
		return err
	}
	h.jobs[id], h.runs[id] = r, r
	return nil
}

// forget removes the record of a submission that did not start.
func (h *ha) forget(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.jobs[id]; r != nil {
		delete(h.runs, r.Run)
	}
	delete(h.jobs, id)
	if err := h.store.remove(id); err != nil {
		h.log.Error("HA storage: a submission that did not start stays recorded", "id", id, "err", err)
	}
}

// checkpointed is the session runner's OnCheckpoint: it points the record
// of run at its completed checkpoint. It runs on the job's JobMaster loop
// before the tasks are told, so the pointer is written before any sink
// commits. A failed write is logged: recovery then finds the checkpoint
// in the run's directory all the same.
func (h *ha) checkpointed(run string, id int64, loc string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.runs[run]
	if r == nil {
		return
	}
	r.Checkpoint = &haCheckpoint{Run: run, ID: id, Location: loc}
	if err := h.store.put(r); err != nil {
		h.log.Error("HA storage: could not record a completed checkpoint", "id", r.ID, "checkpoint", id, "err", err)
	}
}

// ended records how job id ended; its record is not recovered again.
func (h *ha) ended(id, state string, cause error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.jobs[id]
	if r == nil {
		return
	}
	r.State, r.Error = state, ""
	if cause != nil && state != haFinished {
		r.Error = cause.Error()
	}
	if err := h.store.put(r); err != nil {
		h.log.Error("HA storage: could not record the end of a job; a restarted JobManager would run it again", "id", id, "state", state, "err", err)
	}
}

// load reads the store and returns the records of the jobs to recover.
func (h *ha) load() ([]*haRecord, error) {
	all, err := h.store.list()
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var running []*haRecord
	for _, r := range all {
		h.jobs[r.ID], h.runs[r.Run] = r, r
		if r.State == haRunning {
			running = append(running, r)
		}
	}
	return running, nil
}

// restorePoint is where job r's next run starts: the latest completed
// checkpoint of its current run, else what that run started from ("":
// from scratch).
func (h *ha) restorePoint(ctx context.Context, r *haRecord) (string, error) {
	opts := r.Submission.Options
	if opts.CheckpointInterval == "" || opts.CheckpointDir == "" {
		return r.RestoredFrom, nil
	}
	st, err := storage.Open(ctx, opts.CheckpointDir, storage.Options{Logger: h.log})
	if err != nil {
		return "", fmt.Errorf("checkpoint storage: %w", err)
	}
	defer st.Close()
	md, loc, err := st.LatestCompleted(ctx, r.Run)
	var found int64
	switch {
	case errors.Is(err, storage.ErrNoCheckpoint):
		loc = r.RestoredFrom
	case err != nil:
		return "", err
	default:
		found = md.CheckpointID
	}
	if p := r.Checkpoint; p != nil && p.Run == r.Run && found < p.ID {
		return "", fmt.Errorf("checkpoint %d of run %s at %s completed, but the newest complete checkpoint of the run is %d: "+
			"restoring an older one would write committed output again", p.ID, r.Run, p.Location, found)
	}
	return loc, nil
}

// recovering records that job r starts again as run from loc.
func (h *ha) recovering(r *haRecord, run, loc string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	next := *r
	next.Run, next.RestoredFrom, next.Recoveries = run, loc, r.Recoveries+1
	if err := h.store.put(&next); err != nil {
		return err
	}
	delete(h.runs, r.Run)
	*r = next
	h.runs[run] = r
	return nil
}

// recoveredJob is a recovered run, listed under the job's id.
type recoveredJob struct {
	Job
	id string
}

func (j recoveredJob) JobID() string { return j.id }

// recover starts again every job the HA store says is RUNNING, each from
// its restore point. A job that cannot be recovered is logged and left
// RUNNING in the store (the next JobManager tries again), unless its
// submission no longer builds, which fails it.
func (d *Dispatcher) recover() error {
	running, err := d.ha.load()
	if err != nil {
		return err
	}
	for _, r := range running {
		loc, err := d.ha.restorePoint(d.ctx, r)
		if err != nil {
			d.log.Error("cannot recover job", "job", r.Submission.Job, "id", r.ID, "err", err)
			continue
		}
		run, lineage := newJobID(), ""
		if loc == "" {
			lineage = r.ID // the runs before committed nothing; their sinks' leftovers are of this lineage
		}
		if err := d.ha.recovering(r, run, loc); err != nil {
			d.log.Error("cannot recover job", "job", r.Submission.Job, "id", r.ID, "err", err)
			continue
		}
		s := r.Submission
		s.Options.FromSavepoint = loc
		j, err := d.jobs.Start(d.ctx, s, Launch{JobID: run, Lineage: lineage, Datasets: d.cluster}, d.runner, d.log)
		if err != nil {
			d.log.Error("cannot recover job: its submission does not start", "job", s.Job, "id", r.ID, "err", err)
			d.ha.ended(r.ID, haFailed, err)
			continue
		}
		d.log.Warn("job recovered", "job", s.Job, "id", r.ID, "run", run, "from", loc)
		d.track(recoveredJob{Job: j, id: r.ID}, s.Job)
	}
	return nil
}

// haState is the record state of a job that ended in state.
func haState(state scheduler.JobStatus) string {
	switch state {
	case scheduler.Finished:
		return haFinished
	case scheduler.Canceled:
		return haCanceled
	default:
		return haFailed
	}
}
