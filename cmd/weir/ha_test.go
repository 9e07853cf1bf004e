package main

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weir-engine/weir/jobs/sequence"
)

// Failures of the cluster processes, for real (issue 11, item 5): a
// JobManager and TaskManagers on loopback, SIGKILLed and SIGTERMed while
// the sequence job writes through the exactly-once file sink. Bounded by
// default; -cluster.soak runs them with ten times the input, and
// -chaos.kills (chaos_test.go) sets the TaskManager kills.
var clusterSoak = flag.Bool("cluster.soak", false, "run the cluster failure tests with ten times the input")

// soaked is cfg with ten times the records under -cluster.soak.
func soaked(cfg sequence.Config) sequence.Config {
	if *clusterSoak {
		cfg.RecordsPerKey *= 10
	}
	return cfg
}

// freeAddr is a loopback address whose port is free now.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// haCluster is a JobManager on fixed addresses, which a test starts again
// with the same flags.
type haCluster struct {
	*cluster
	args []string
}

// startHACluster starts a JobManager whose checkpoints, and HA storage,
// are under dir. TaskManagers are lost from their closed connections: the
// heartbeat timeout is longer than any test.
func startHACluster(t testing.TB, dir string) *haCluster {
	t.Helper()
	args := []string{"jobmanager", "--rpc-addr", freeAddr(t), "--rest-addr", freeAddr(t), "--checkpoint-dir", dir,
		"--heartbeat-interval", "200ms", "--heartbeat-timeout", "60s", "-v"}
	return &haCluster{cluster: startJobManager(t, args...), args: args}
}

// restart starts the JobManager again with the same flags; the one before
// has ended.
func (c *haCluster) restart(t testing.TB) { c.cluster = startJobManager(t, c.args...) }

// sequenceArgs is `sequence` with cfg writing into out.
func sequenceArgs(cfg sequence.Config, out string) []string {
	return []string{"sequence", "--keys", strconv.Itoa(cfg.Keys), "--records-per-key", strconv.FormatInt(cfg.RecordsPerKey, 10),
		"--rate", strconv.FormatFloat(cfg.Rate, 'f', -1, 64), "--output", out}
}

// submitDetached submits args to c and returns the job's id.
func submitDetached(t testing.TB, c *cluster, args ...string) string {
	t.Helper()
	r := runWeir(t, append([]string{"run", "--jobmanager", c.rest, "--detach"}, args...)...)
	if r.code != 0 || !jobID.MatchString(r.stdout) {
		t.Fatalf("run --detach: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// awaitCheckpointsUntil waits until n more checkpoints completed on p, and
// reports false if end was closed (or p ended) first.
func awaitCheckpointsUntil(p *proc, end <-chan struct{}, n int) bool {
	for n > 0 {
		select {
		case line, ok := <-p.lines:
			if !ok {
				return false
			}
			if checkpointDone.MatchString(line) {
				n--
			}
		case <-end:
			return false
		}
	}
	return true
}

// stderrOf is what p wrote on stderr so far.
func stderrOf(p *proc) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// verifyOutput checks that out holds every key's sequence exactly once.
func verifyOutput(t *testing.T, cfg sequence.Config, out string) {
	t.Helper()
	lines, err := sequence.CommittedLines(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, lines); err != nil {
		t.Fatalf("committed output: %v", err)
	}
}

// haState reads the state of job id in the HA store under dir.
func haState(t *testing.T, dir, id string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "weir-ha", "jobs", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ State string }
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r.State
}

// One JobManager, three TaskManagers of one slot and the sequence job at
// parallelism 2: a random TaskManager is SIGKILLed after every second
// checkpoint, -chaos.kills times, and a new one started in its place. The
// JobManager loses each from its closed connection, the job restarts from
// its latest checkpoint on the slots that remain, finishes, and every
// key's sequence is committed exactly once.
func TestClusterTaskManagersKilledRepeatedly(t *testing.T) {
	cfg := soaked(sequence.Config{Keys: 8, RecordsPerKey: 4000, Rate: 8000})
	seed := *chaosSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -chaos.seed=%d), %d kills", seed, seed, *chaosKills)
	rng := rand.New(rand.NewPCG(seed, seed))
	out := t.TempDir()
	c := startCluster(t, t.TempDir(), "--heartbeat-timeout", "60s")
	tms := []*proc{c.startTaskManager(t, "1"), c.startTaskManager(t, "1"), c.startTaskManager(t, "1")}
	run := startWeir(t, append([]string{"run", "--parallelism", "2", "--checkpoint-interval", "100ms", "--jobmanager", c.rest},
		sequenceArgs(cfg, out)...)...)
	kills := 0
	for kills < *chaosKills && awaitCheckpointsUntil(c.jm, run.done, 2) {
		i := rng.IntN(len(tms))
		if err := tms[i].cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		tms[i].wait()
		kills++
		tms[i] = c.startTaskManager(t, "1")
	}
	if code, stderr := run.wait(); code != 0 {
		t.Fatalf("run: exit %d after %d kills: %s\njobmanager:\n%s", code, kills, stderr, stderrOf(c.jm))
	}
	if kills == 0 {
		t.Fatal("the job ended before the first kill")
	}
	t.Logf("%d kills", kills)
	verifyOutput(t, cfg, out)
	if n := strings.Count(stderrOf(c.jm), "connection closed"); n < kills {
		t.Errorf("the jobmanager lost %d TaskManagers from their closed connections, want %d", n, kills)
	}
}

// The JobManager is SIGKILLed mid-job and started again with the same
// flags: its TaskManagers register with it again, it recovers the job
// from the HA store (under --checkpoint-dir) from its latest completed
// checkpoint before it listens, under the id it was submitted with, and
// the job finishes with its output exactly once. A JobManager started
// after that (SIGTERM, then the same flags) does not run the finished job
// again.
func TestClusterJobManagerKilledAndRestarted(t *testing.T) {
	cfg := soaked(sequence.Config{Keys: 8, RecordsPerKey: 3000, Rate: 6000})
	cps, out := t.TempDir(), t.TempDir()
	c := startHACluster(t, cps)
	for range 3 {
		c.startTaskManager(t, "1")
	}
	id := submitDetached(t, c.cluster, append([]string{"--parallelism", "2", "--checkpoint-interval", "100ms"}, sequenceArgs(cfg, out)...)...)
	if c.jm.awaitCheckpoints(3) == "" {
		t.Fatalf("the jobmanager ended before three checkpoints: %s", stderrOf(c.jm))
	}
	if err := c.jm.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.jm.wait()

	c.restart(t)
	if s := stderrOf(c.jm); !strings.Contains(s, "job recovered: job=sequence id="+id) {
		t.Fatalf("the new jobmanager did not recover job %s before it listened:\n%s", id, s)
	}
	awaitLines(t, c.jm, 1, "job ended", "id="+id, "state=FINISHED")
	verifyOutput(t, cfg, out)
	if list := runWeir(t, "list", "--jobmanager", c.rest); !strings.Contains(list.stdout, id+"  ") {
		t.Errorf("list: exit %d, stdout %q; want the job under its id", list.code, list.stdout)
	}
	if got := haState(t, cps, id); got != "FINISHED" {
		t.Errorf("HA store: job %s is %s, want FINISHED", id, got)
	}

	if err := c.jm.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, stderr := c.jm.wait(); code != 0 {
		t.Fatalf("jobmanager after SIGTERM: exit %d: %s", code, stderr)
	}
	c.restart(t)
	if s := stderrOf(c.jm); strings.Contains(s, "job recovered") {
		t.Errorf("a finished job was recovered:\n%s", s)
	}
}

// SIGTERM shuts the processes down gracefully. A TaskManager deregisters
// (the job restarts at once with the shutdown as the cause, on the
// TaskManager started beside it) and exits 0; the JobManager stops,
// cancels the job's tasks, exits 0 and leaves the job RUNNING in its HA
// store, so that the JobManager started again with the same flags
// recovers it and it finishes with its output exactly once.
func TestClusterGracefulShutdown(t *testing.T) {
	cfg := soaked(sequence.Config{Keys: 4, RecordsPerKey: 3000, Rate: 4000})
	cps, out := t.TempDir(), t.TempDir()
	c := startHACluster(t, cps)
	first := c.startTaskManager(t, "2")
	id := submitDetached(t, c.cluster, append([]string{"--parallelism", "2", "--checkpoint-interval", "100ms"}, sequenceArgs(cfg, out)...)...)
	if c.jm.awaitCheckpoints(2) == "" {
		t.Fatalf("the jobmanager ended before two checkpoints: %s", stderrOf(c.jm))
	}
	c.startTaskManager(t, "2")
	if err := first.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, stderr := first.wait(); code != 0 || !strings.Contains(stderr, "deregistered from the jobmanager") {
		t.Fatalf("taskmanager after SIGTERM: exit %d; want 0 and its deregistration:\n%s", code, stderr)
	}
	awaitLines(t, c.jm, 1, "TaskManager lost", "shut down")
	if c.jm.awaitCheckpoints(2) == "" {
		t.Fatalf("the jobmanager ended before two checkpoints after the restart: %s", stderrOf(c.jm))
	}

	if err := c.jm.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, stderr := c.jm.wait(); code != 0 || !strings.Contains(stderr, "job suspended") {
		t.Fatalf("jobmanager after SIGTERM: exit %d; want 0 and the job suspended:\n%s", code, stderr)
	}
	if got := haState(t, cps, id); got != "RUNNING" {
		t.Fatalf("HA store after SIGTERM: job %s is %s, want RUNNING", id, got)
	}
	c.restart(t)
	awaitLines(t, c.jm, 1, "job ended", "id="+id, "state=FINISHED")
	verifyOutput(t, cfg, out)
}
