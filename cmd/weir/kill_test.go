package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/jobs/sequence"
)

// A `weir run` killed with SIGKILL in the middle of its job, checkpointing
// Pebble state incrementally every 100 ms, loses nothing: a new process
// started from the newest checkpoint with a _metadata (the commit point)
// finishes the job, the committed output is exactly-once, and the killed
// process's local state directories are cleaned up.
func TestKilledProcessResumesFromItsCheckpoint(t *testing.T) {
	cfg := sequence.Config{Keys: 8, RecordsPerKey: 3000, Rate: 8000}
	out, cps, state := t.TempDir(), t.TempDir(), t.TempDir()
	args := func(extra ...string) []string {
		a := append([]string{"run", "--parallelism", "2", "--checkpoint-interval", "100ms",
			"--state-backend", "pebble", "--incremental", "--state-dir", state}, extra...)
		return append(a, "sequence", "--keys", strconv.Itoa(cfg.Keys),
			"--records-per-key", strconv.FormatInt(cfg.RecordsPerKey, 10), "--rate", "8000", "--output", out)
	}
	first := exec.Command(weirBin, args("--checkpoint-dir", cps)...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once a few checkpoints completed, well before its 3 s of input end.
	deadline := time.Now().Add(20 * time.Second)
	var latest string
	for latest == "" || checkpointID(latest) < 4 {
		if time.Now().After(deadline) {
			_ = first.Process.Kill()
			t.Fatalf("no fourth checkpoint in 20 s (latest %q)", latest)
		}
		time.Sleep(20 * time.Millisecond)
		latest = newestCheckpoint(t, cps)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	latest = newestCheckpoint(t, cps) // one may have completed meanwhile

	second := runWeir(t, args("--checkpoint-dir", t.TempDir(), "--from-savepoint", latest)...)
	if second.code != 0 {
		t.Fatalf("resumed run: exit %d\n%s", second.code, second.stderr)
	}
	lines, err := sequence.CommittedLines(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, lines); err != nil {
		t.Fatalf("after a kill and a resume from %s: %v", latest, err)
	}
	// The killed process could not remove its Pebble directories; the
	// second one removed them, and its own when it ended.
	if left, _ := os.ReadDir(state); len(left) > 0 {
		t.Errorf("%d directories left in the state directory, e.g. %s", len(left), left[0].Name())
	}
}

// newestCheckpoint returns the newest chk-N directory under the one job
// directory of root that has its _metadata, or "".
func newestCheckpoint(t *testing.T, root string) string {
	t.Helper()
	jobs, _ := os.ReadDir(root)
	var found []string
	for _, j := range jobs {
		chks, _ := os.ReadDir(filepath.Join(root, j.Name()))
		for _, c := range chks {
			dir := filepath.Join(root, j.Name(), c.Name())
			if _, err := os.Stat(filepath.Join(dir, "_metadata")); err == nil && strings.HasPrefix(c.Name(), "chk-") {
				found = append(found, dir)
			}
		}
	}
	if len(found) == 0 {
		return ""
	}
	return slices.MaxFunc(found, func(a, b string) int { return checkpointID(a) - checkpointID(b) })
}

func checkpointID(dir string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "chk-"))
	return n
}
