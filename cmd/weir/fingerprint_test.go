package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// buildOther builds testdata/otherbuild, a binary whose "wordcount" job
// has another graph than this package's binary's.
func buildOther(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "otherbuild")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/otherbuild").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./testdata/otherbuild: %v\n%s", err, out)
	}
	return bin
}

// fingerprints matches the refusal of a graph whose fingerprint differs,
// naming the TaskManager's and the JobManager's.
var fingerprints = regexp.MustCompile(`graph fingerprint mismatch: registered job "wordcount" .*has graph ([0-9a-f]{8,}) here, the sender's is ([0-9a-f]{8,})`)

// A TaskManager whose binary builds another graph for a job than the
// JobManager's refuses the job's subtasks: the job fails at once (no
// restart can fix it) with an error that names both fingerprints, and
// `weir run` exits 1 with it.
func TestClusterRefusesAnotherFingerprint(t *testing.T) {
	other := buildOther(t)
	c := startCluster(t, t.TempDir())
	tm := startWeirBin(t, other, "taskmanager", "--jobmanager", c.rpc, "--slots", "2", "-v")
	awaitLines(t, tm, 1, "registered with the jobmanager")
	r := runWeir(t, "run", "wordcount", "--parallelism", "2", "--input", sample, "--output", t.TempDir(), "--jobmanager", c.rest)
	m := fingerprints.FindStringSubmatch(r.stderr)
	if r.code != 1 || m == nil || m[1] == m[2] {
		_ = c.jm.cmd.Process.Kill()
		_, jmErr := c.jm.wait()
		t.Fatalf("run: exit %d, stderr %q; want 1 and both fingerprints\njobmanager:\n%s", r.code, r.stderr, jmErr)
	}
}
