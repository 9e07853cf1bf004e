package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest/api"
	"github.com/weir-engine/weir/jobs/sequence"
)

// pebbleDBs lists the Pebble databases that the TaskManager process pid
// has in its data directory: the db directories, with a Pebble MANIFEST,
// of its keyed subtasks' working directories (weir-<pid>-...).
func pebbleDBs(dataDir string, pid int) []string {
	dirs, _ := filepath.Glob(filepath.Join(dataDir, fmt.Sprintf("weir-%d-*", pid), "db"))
	var dbs []string
	for _, d := range dirs {
		if m, _ := filepath.Glob(filepath.Join(d, "MANIFEST-*")); len(m) > 0 {
			dbs = append(dbs, d)
		}
	}
	return dbs
}

// TestClusterPebbleTaskManagerKilled runs sequence with
// --state-backend pebble --incremental on a JobManager and two TaskManager
// processes: the job's state backend travels with its deployments, so each
// TaskManager keeps its keyed subtask's state in a Pebble database under
// its own --data-dir. One TaskManager is SIGKILLed mid-job and a new one
// started on the same data directory: the job restores from its latest
// checkpoint (Pebble's shared files), finishes, and its committed output
// is exactly-once; the new TaskManager removed the dead one's directory
// when its own backend opened there.
func TestClusterPebbleTaskManagerKilled(t *testing.T) {
	cfg := sequence.Config{Keys: 8, RecordsPerKey: 3000, Rate: 8000}
	cps, out := t.TempDir(), t.TempDir()
	c := startCluster(t, cps, "--heartbeat-timeout", "60s")
	dataA, dataB := t.TempDir(), t.TempDir()
	survivor := c.startTaskManager(t, "1", "--data-dir", dataA)
	victim := c.startTaskManager(t, "1", "--data-dir", dataB)
	run := c.runSequence(t, cfg, out, "--state-backend", "pebble", "--incremental")
	// A completed checkpoint means every subtask runs, each keyed one with
	// its backend open: one per TaskManager, as each has one slot.
	c.awaitCheckpoints(t, 3)
	for _, tm := range []struct {
		dir string
		p   *proc
	}{{dataA, survivor}, {dataB, victim}} {
		if dbs := pebbleDBs(tm.dir, tm.p.cmd.Process.Pid); len(dbs) != 1 {
			t.Fatalf("TaskManager %d: Pebble databases %q under its --data-dir, want one (its keyed subtask's)", tm.p.cmd.Process.Pid, dbs)
		}
	}
	dead := victim.cmd.Process.Pid
	killTaskManager(t, victim)
	c.startTaskManager(t, "1", "--data-dir", dataB)
	c.awaitSuccess(t, run)
	verifyFiles(t, cfg, out)
	if left, _ := filepath.Glob(filepath.Join(dataB, fmt.Sprintf("weir-%d-*", dead))); len(left) > 0 {
		t.Errorf("the killed TaskManager's state directories were not removed: %q", left)
	}
	if jmErr := c.jm.stderrSoFar(); !strings.Contains(jmErr, "restarting") {
		t.Errorf("the job did not restart:\n%s", jmErr)
	}
}

// A state directory names a directory of the submitting host, which means
// nothing to a cluster's TaskManagers: `weir run --jobmanager` refuses it
// as a usage error, and so does the JobManager's POST /jobs.
func TestClusterRefusesStateDir(t *testing.T) {
	c := startCluster(t, t.TempDir())
	r := runWeir(t, "run", "--jobmanager", c.rest, "--state-backend", "pebble", "--state-dir", t.TempDir(), "sequence")
	if r.code != 2 || !strings.Contains(r.stderr, "--state-dir means nothing on a cluster") {
		t.Errorf("run: exit %d, stderr %q; want a usage error about --state-dir", r.code, r.stderr)
	}
	status, msg := postJSON(t, "http://"+c.rest+"/jobs", api.JobSubmission{Job: "sequence",
		Options: api.EngineOptions{StateBackend: "pebble", StateDir: os.TempDir()}})
	if status != http.StatusBadRequest || !strings.Contains(msg, "--data-dir") {
		t.Errorf("POST /jobs: %d %q; want 400 naming the TaskManagers' --data-dir", status, msg)
	}
}
