package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/weir-engine/weir/internal/rest/api"
)

// The JobManager's high-availability store: what a JobManager started
// again with the same flags needs to go on with the jobs of the one that
// died. One JSON file per submitted job, <dir>/jobs/<job id>.json, holds
// the job's submission (the registered job's name, arguments and engine
// options: its job graph, since every process rebuilds the graph from
// them), the id of its current run, the pointer to its latest completed
// checkpoint and its status. Each write is crash-safe: a temporary file
// in the same directory, fsynced, renamed over the record, and the
// directory fsynced, so a record is either the old or the new one.

// haJobsDir is the subdirectory of the HA storage directory that holds the
// job records.
const haJobsDir = "weir-ha/jobs"

// haRecord is one job's record.
type haRecord struct {
	// ID is the id the job was submitted under and keeps for its clients;
	// Run is the id of its current run, which names its checkpoint
	// directory, part files and transactions (a recovered job runs under
	// a new one, see harecover.go).
	ID  string `json:"id"`
	Run string `json:"run"`
	// Submission is what the job was submitted with, its defaults filled
	// in by the Dispatcher.
	Submission api.JobSubmission `json:"submission"`
	// State is RUNNING until the job ends, then FINISHED, CANCELED or
	// FAILED. A JobManager that shuts down leaves its jobs RUNNING, so
	// that the next one recovers them.
	State string `json:"state"`
	// Checkpoint is the latest completed checkpoint of the job, written
	// before its tasks were told it completed.
	Checkpoint *haCheckpoint `json:"checkpoint,omitempty"`
	// RestoredFrom is what the current run started from ("": nothing).
	RestoredFrom string `json:"restoredFrom,omitempty"`
	// Recoveries counts the runs started by a JobManager's recovery.
	Recoveries int `json:"recoveries,omitempty"`
	// Error is why a FAILED job ended, or why it could not be recovered.
	Error   string    `json:"error,omitempty"`
	Updated time.Time `json:"updated"`
}

// haCheckpoint points at a completed checkpoint of one run.
type haCheckpoint struct {
	Run      string `json:"run"`
	ID       int64  `json:"id"`
	Location string `json:"location"`
}

// The states of a record.
const (
	haRunning  = "RUNNING"
	haFinished = "FINISHED"
	haCanceled = "CANCELED"
	haFailed   = "FAILED"
)

// haStore reads and writes the records under one directory.
type haStore struct{ dir string }

// jobIDPattern is a job id: 32 lower-case hex characters.
var jobIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// openHAStore creates the store's directory under root if needed.
func openHAStore(root string) (*haStore, error) {
	dir := filepath.Join(root, filepath.FromSlash(haJobsDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("HA storage: %w", err)
	}
	return &haStore{dir: dir}, nil
}

func (s *haStore) path(id string) string { return filepath.Join(s.dir, id+".json") }

// put writes r crash-safely.
func (s *haStore) put(r *haRecord) error {
	if !jobIDPattern.MatchString(r.ID) {
		return fmt.Errorf("HA storage: job id %q is not 32 hex characters", r.ID)
	}
	r.Updated = time.Now().UTC()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("HA storage: job %s: %w", r.ID, err)
	}
	if err := writeFileSynced(s.path(r.ID), append(b, '\n')); err != nil {
		return fmt.Errorf("HA storage: job %s: %w", r.ID, err)
	}
	return nil
}

// remove deletes the record of job id (a submission that did not start).
func (s *haStore) remove(id string) error {
	if err := os.Remove(s.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("HA storage: job %s: %w", id, err)
	}
	return syncDir(s.dir)
}

// list reads every record, sorted by job id. A record that does not
// decode is an error naming its file: a JobManager does not start on a
// store it cannot read whole, rather than silently losing a job.
func (s *haStore) list() ([]*haRecord, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("HA storage: %w", err)
	}
	var out []*haRecord
	for _, e := range entries {
		name := e.Name()
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || e.IsDir() || !jobIDPattern.MatchString(id) {
			continue // temporary files of an interrupted write, and strangers
		}
		b, err := os.ReadFile(filepath.Join(s.dir, name))
		if err != nil {
			return nil, fmt.Errorf("HA storage: %w", err)
		}
		var r haRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("HA storage: %s: %w", filepath.Join(s.dir, name), err)
		}
		if r.ID != id || !jobIDPattern.MatchString(r.Run) {
			return nil, fmt.Errorf("HA storage: %s: a record of job %q, run %q", filepath.Join(s.dir, name), r.ID, r.Run)
		}
		out = append(out, &r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// writeFileSynced replaces path with data crash-safely: a temporary file
// beside it, fsynced, renamed over path, and the directory fsynced.
func writeFileSynced(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory, making a rename or removal in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
