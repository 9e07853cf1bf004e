package main

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/weir-engine/weir/jobs/sequence"
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
// under dir, configured by a YAML file with Flink's keys that flags may
// override.
func startCluster(t testing.TB, dir string, flags ...string) *cluster {
	t.Helper()
	config := filepath.Join(t.TempDir(), "weir.yaml")
	yaml := "jobmanager.rpc.address: 127.0.0.1\njobmanager.rpc.port: 0\nrest.port: 0\nstate.checkpoints.dir: " + dir + "\nheartbeat.interval: 200\n"
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"jobmanager", "--config", config, "-v"}, flags...)
	return startJobManager(t, args...)
}

// startJobManager starts `weir ARGS` (a JobManager's command line) and
// waits until it listens.
func startJobManager(t testing.TB, args ...string) *cluster {
	t.Helper()
	jm := startWeir(t, args...)
	for line := range jm.lines {
		if m := jobManagerUp.FindStringSubmatch(line); m != nil {
			return &cluster{jm: jm, rpc: m[1], rest: m[2]}
		}
	}
	_, stderr := jm.wait()
	t.Fatalf("the jobmanager ended before it listened: %s", stderr)
	return nil
}

// startTaskManager starts a TaskManager with slots slots (and flags) and
// waits until it registered.
func (c *cluster) startTaskManager(t testing.TB, slots string, flags ...string) *proc {
	t.Helper()
	tm := startWeir(t, append([]string{"taskmanager", "--jobmanager", c.rpc, "--slots", slots, "-v"}, flags...)...)
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

// TestClusterTaskManagerKilled runs the sequence job with checkpoints and
// the exactly-once file sink on two TaskManagers, SIGKILLs one mid-run and
// starts another: the JobManager declares the dead one lost from its
// closed connection (the heartbeat timeout is a minute, longer than the
// test may take), the job restarts from its latest checkpoint on the
// TaskManager left and the new one, and every key's sequence is committed
// exactly once.
func TestClusterTaskManagerKilled(t *testing.T) {
	cfg := sequence.Config{Keys: 8, RecordsPerKey: 3000, Rate: 8000}
	cps, out := t.TempDir(), t.TempDir()
	c := startCluster(t, cps, "--heartbeat-timeout", "60s")
	c.startTaskManager(t, "1")
	victim := c.startTaskManager(t, "1")
	run := c.runSequence(t, cfg, out)
	c.awaitCheckpoints(t, 3)
	killTaskManager(t, victim)
	c.startTaskManager(t, "1")
	c.awaitSuccess(t, run)
	lines, err := sequence.CommittedLines(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, lines); err != nil {
		t.Fatalf("after a TaskManager was killed: %v", err)
	}
	jmErr := c.jm.stderrSoFar()
	if !strings.Contains(jmErr, "taskmanager lost") || !strings.Contains(jmErr, "connection closed") {
		t.Errorf("the jobmanager did not say it lost the TaskManager from its closed connection:\n%s", jmErr)
	}
	if !strings.Contains(jmErr, "restarting") {
		t.Errorf("the job did not restart:\n%s", jmErr)
	}
}

// runSequence starts `weir run sequence` on the cluster at parallelism 2,
// checkpointing every 100 ms, with the exactly-once file sink into out and
// further engine flags.
func (c *cluster) runSequence(t *testing.T, cfg sequence.Config, out string, flags ...string) *proc {
	t.Helper()
	args := append([]string{"run", "--parallelism", "2", "--checkpoint-interval", "100ms", "--jobmanager", c.rest}, flags...)
	return startWeir(t, append(args, "sequence", "--keys", strconv.Itoa(cfg.Keys),
		"--records-per-key", strconv.FormatInt(cfg.RecordsPerKey, 10),
		"--rate", strconv.FormatFloat(cfg.Rate, 'f', -1, 64), "--output", out)...)
}

// awaitCheckpoints waits until the JobManager logged n more completed
// checkpoints.
func (c *cluster) awaitCheckpoints(t *testing.T, n int) {
	t.Helper()
	if loc := c.jm.awaitCheckpoints(n); loc == "" {
		_, stderr := c.jm.wait()
		t.Fatalf("the jobmanager ended before %d checkpoints: %s", n, stderr)
	}
}

// killTaskManager SIGKILLs a TaskManager and waits for its end.
func killTaskManager(t *testing.T, tm *proc) {
	t.Helper()
	if err := tm.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	tm.wait()
}

// awaitSuccess waits for a followed `weir run` and fails the test, with
// the JobManager's log, unless its job finished.
func (c *cluster) awaitSuccess(t *testing.T, run *proc) {
	t.Helper()
	if code, stderr := run.wait(); code != 0 {
		_ = c.jm.cmd.Process.Kill()
		_, jmErr := c.jm.wait()
		t.Fatalf("run: exit %d: %s\njobmanager:\n%s", code, stderr, jmErr)
	}
}

// A configuration file with a key the JobManager does not know is a usage
// error that names the key.
func TestJobManagerBadConfig(t *testing.T) {
	config := filepath.Join(t.TempDir(), "weir.yaml")
	if err := os.WriteFile(config, []byte("rest.port: 0\nrest.prot: 8081\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runWeir(t, "jobmanager", "--config", config, "--checkpoint-dir", t.TempDir())
	if r.code != 2 || !strings.Contains(r.stderr, "unknown keys rest.prot") {
		t.Errorf("exit %d, stderr %q; want 2 and the unknown key", r.code, r.stderr)
	}
}

// `weir run --detach` prints the job id and returns while the job runs;
// list shows it and cancel ends it, against the JobManager process.
func TestClusterDetachListCancel(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.startTaskManager(t, "2")
	r := runWeir(t, "run", "--jobmanager", c.rest, "--detach", "--parallelism", "2",
		"sequence", "--keys", "2", "--records-per-key", "1000000", "--rate", "100", "--output", t.TempDir())
	if r.code != 0 || !jobID.MatchString(r.stdout) {
		t.Fatalf("run --detach: exit %d, stdout %q, stderr %q; want 0 and the job id", r.code, r.stdout, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	list := runWeir(t, "list", "--jobmanager", c.rest)
	if list.code != 0 || !strings.Contains(list.stdout, id+"  ") || !strings.Contains(list.stdout, "  sequence") {
		t.Fatalf("list: exit %d, stdout %q, stderr %q; want the job", list.code, list.stdout, list.stderr)
	}
	if cancel := runWeir(t, "cancel", id, "--jobmanager", c.rest); cancel.code != 0 {
		t.Fatalf("cancel: exit %d, stderr %q", cancel.code, cancel.stderr)
	}
}

// A submission to an address where no JobManager listens fails at once
// with a one-line reason.
func TestRunWithoutJobManager(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r := runWeir(t, "run", "--jobmanager", addr, "wordcount", "--input", sample)
	if r.code != 1 || !strings.Contains(r.stderr, "no JobManager at "+addr) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 1 and one line saying no JobManager answers", r.code, r.stderr)
	}
}

// A submission the JobManager's binary cannot build (its builder refuses
// the arguments) is a usage error with the builder's reason, as in an
// embedded run.
func TestClusterRunBadArguments(t *testing.T) {
	c := startCluster(t, t.TempDir())
	r := runWeir(t, "run", "--jobmanager", c.rest, "wordcount", "--input", filepath.Join(t.TempDir(), "missing.txt"))
	if r.code != 2 || !strings.HasPrefix(r.stderr, "weir: run: wordcount: input ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 2 and the builder's reason", r.code, r.stderr)
	}
}

// A TaskManager whose JobManager is SIGKILLed mid-job cancels its
// subtasks at once (its connection closed; the sequence job's two
// vertices at parallelism 2 are four subtasks in its two slots) and
// registers again with the JobManager started in its place, which runs
// jobs on it.
func TestClusterTaskManagerOutlivesItsJobManager(t *testing.T) {
	c := startCluster(t, t.TempDir())
	tm := c.startTaskManager(t, "2")
	run := startWeir(t, "run", "--jobmanager", c.rest, "--parallelism", "2", "--checkpoint-interval", "100ms",
		"sequence", "--keys", "2", "--records-per-key", "1000000", "--rate", "1000", "--output", t.TempDir())
	if loc := c.jm.awaitCheckpoints(1); loc == "" {
		_, stderr := c.jm.wait()
		t.Fatalf("the jobmanager ended before a checkpoint: %s", stderr)
	}
	if err := c.jm.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.jm.wait()
	if code, stderr := run.wait(); code == 0 || !strings.Contains(stderr, "no JobManager at") {
		t.Errorf("run: exit %d, stderr %q; want the lost JobManager", code, stderr)
	}
	awaitLines(t, tm, 1, "lost the jobmanager: cancelled the subtasks, registering again:", "subtasks=4")

	again := startWeir(t, "jobmanager", "--rpc-addr", c.rpc, "--rest-addr", "127.0.0.1:0", "--checkpoint-dir", t.TempDir())
	var rest string
	for line := range again.lines {
		if m := jobManagerUp.FindStringSubmatch(line); m != nil {
			rest = m[2]
			break
		}
	}
	awaitLines(t, tm, 2, "registered with the jobmanager")
	out := filepath.Join(t.TempDir(), "counts")
	if r := runWeir(t, "run", "wordcount", "--parallelism", "2", "--input", sample, "--output", out, "--jobmanager", rest); r.code != 0 {
		t.Fatalf("wordcount on the new JobManager: exit %d, stderr %q", r.code, r.stderr)
	}
}

// awaitLines waits until n lines of p's stderr contain each of parts.
// The lines channel drops lines while nobody reads it, so every line read
// is also a cue to look through all of stderr so far.
func awaitLines(t testing.TB, p *proc, n int, parts ...string) {
	t.Helper()
	has := func(line string) bool {
		for _, s := range parts {
			if !strings.Contains(line, s) {
				return false
			}
		}
		return true
	}
	seen := func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		count := 0
		for _, line := range strings.Split(p.stderr.String(), "\n") {
			if has(line) {
				count++
			}
		}
		return count >= n
	}
	for range p.lines {
		if seen() {
			return
		}
	}
	if seen() {
		return
	}
	_, stderr := p.wait()
	t.Fatalf("fewer than %d lines with %q; the process ended: %s", n, parts, stderr)
}
