package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The cluster processes, for real: a JobManager and TaskManagers, each a
// child process of its own, on free loopback ports, with jobs submitted by
// `weir run --jobmanager`.

// jobManagerUp matches the JobManager's line that says where it listens.
var jobManagerUp = regexp.MustCompile(`^jobmanager: RPC at (\S+), REST API at http://(\S+)$`)

// cluster is a running JobManager process.
type cluster struct {
	jm        *proc
	rpc, rest string
}

// startCluster starts a JobManager on free ports with its checkpoints
// under dir.
func startCluster(t *testing.T, dir string) *cluster {
	t.Helper()
	jm := startWeir(t, "jobmanager", "--rpc-addr", "127.0.0.1:0", "--rest-addr", "127.0.0.1:0", "--checkpoint-dir", dir, "-v")
	for line := range jm.lines {
		if m := jobManagerUp.FindStringSubmatch(line); m != nil {
			return &cluster{jm: jm, rpc: m[1], rest: m[2]}
		}
	}
	_, stderr := jm.wait()
	t.Fatalf("the jobmanager ended before it listened: %s", stderr)
	return nil
}

// startTaskManager starts a TaskManager with slots slots and waits until
// it registered.
func (c *cluster) startTaskManager(t *testing.T, slots string) *proc {
	t.Helper()
	tm := startWeir(t, "taskmanager", "--jobmanager", c.rpc, "--slots", slots, "-v")
	for line := range tm.lines {
		if strings.Contains(line, "registered with the jobmanager") {
			return tm
		}
	}
	_, stderr := tm.wait()
	t.Fatalf("the taskmanager ended before it registered: %s", stderr)
	return nil
}

// jobID matches the id `weir run --jobmanager` prints.
var jobID = regexp.MustCompile(`^[0-9a-f]{32}\n$`)

// TestClusterWordcount runs wordcount at parallelism 2 on two TaskManagers
// of one slot each: each runs one source and one counting subtask, and the
// keyBy between them is all-to-all, so half the words cross the TCP data
// plane from one TaskManager process to the other.
func TestClusterWordcount(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.startTaskManager(t, "1")
	c.startTaskManager(t, "1")
	out := filepath.Join(t.TempDir(), "counts")
	r := runWeir(t, "run", "wordcount", "--parallelism", "2", "--input", sample, "--output", out, "--jobmanager", c.rest)
	if r.code != 0 {
		t.Fatalf("run: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !jobID.MatchString(r.stdout) {
		t.Errorf("stdout %q, want the job id", r.stdout)
	}
	parts, err := filepath.Glob(filepath.Join(out, "part-*"))
	if err != nil || len(parts) != 2 {
		t.Fatalf("part files %q (%v), want one per sink subtask", parts, err)
	}
	var all strings.Builder
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	if got, want := sortedLines(all.String()), expectedLines(t); !slices.Equal(got, want) {
		t.Errorf("output (%d lines) differs from %s (%d lines)", len(got), expected, len(want))
	}
}
