package main

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/jobs/sequence"
)

// Failover figures of the cluster processes (issue 11, item 5), each
// iteration on a cluster of its own:
//
//	go test ./cmd/weir -run '^$' -bench 'Cluster(TaskManager|JobManager)' -benchtime 5x
//
// The times are taken when this process reads the JobManager's log line
// from its stderr pipe, and when it sees a file appear in the job's
// output directory (polled every 2 ms), so each is an upper bound by a
// few milliseconds.

// failoverJob is a sequence job that runs far longer than an iteration.
var failoverJob = sequence.Config{Keys: 4, RecordsPerKey: 1 << 30, Rate: 2000}

// pendingPart matches the file sink's pending part files: the attempt and
// the run's short id are in the name (connector/file/names.go).
var pendingPart = regexp.MustCompile(`^\.part-.*-([0-9a-f]{8})-(\d+)-(\d+)-(\d+)\.[^.]+$`)

// awaitMarks reads p's stderr lines until it read, for each of marks, a
// line that contains it, and returns when it read each. Reading them all
// in one pass keeps the times right whatever order the lines come in.
func awaitMarks(b *testing.B, p *proc, marks ...string) []time.Time {
	b.Helper()
	at := make([]time.Time, len(marks))
	left := len(marks)
	for line := range p.lines {
		for i, m := range marks {
			if at[i].IsZero() && strings.Contains(line, m) {
				at[i] = time.Now()
				left--
			}
		}
		if left == 0 {
			return at
		}
	}
	b.Fatalf("the process ended before lines with %q: %s", marks, stderrOf(p))
	return nil
}

// awaitPart polls dir until a pending part file for which ok holds
// appears, and returns when it saw it.
func awaitPart(b *testing.B, dir string, ok func(run string, attempt int) bool) time.Time {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range entries {
			if m := pendingPart.FindStringSubmatch(e.Name()); m != nil {
				if attempt, _ := strconv.Atoi(m[3]); ok(m[1], attempt) {
					return time.Now()
				}
			}
		}
		time.Sleep(2 * time.Millisecond) // the poll's period: a file appearing is no event to await
	}
	b.Fatalf("no new part file in %s within a minute", dir)
	return time.Time{}
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkClusterTaskManagerFailover: two TaskManagers of one slot run
// the job, a third stands by; one of the two is SIGKILLed. Figures: to
// the JobManager declaring it lost from its closed RPC connection
// (detect-ms), to the restart decision (restart-ms; it can come first:
// the subtasks reading from the dead TaskManager fail as their data
// connections close), and to the restarted attempt's first record in the
// sink (records-ms).
func BenchmarkClusterTaskManagerFailover(b *testing.B) {
	var detect, restart, records float64
	for range b.N {
		out := b.TempDir()
		c := startCluster(b, b.TempDir(), "--heartbeat-timeout", "60s")
		victim := c.startTaskManager(b, "1")
		c.startTaskManager(b, "1")
		submitDetached(b, c, append([]string{"--parallelism", "2", "--checkpoint-interval", "100ms"}, sequenceArgs(failoverJob, out)...)...)
		if c.jm.awaitCheckpoints(2) == "" {
			b.Fatalf("the jobmanager ended: %s", stderrOf(c.jm))
		}
		c.startTaskManager(b, "1")
		t0 := time.Now()
		if err := victim.cmd.Process.Kill(); err != nil {
			b.Fatal(err)
		}
		at := awaitMarks(b, c.jm, "taskmanager lost", "job restarting")
		lost, decided := at[0], at[1]
		flowing := awaitPart(b, out, func(_ string, attempt int) bool { return attempt > 0 })
		detect += ms(lost.Sub(t0))
		restart += ms(decided.Sub(t0))
		records += ms(flowing.Sub(t0))
		victim.wait()
	}
	n := float64(b.N)
	b.ReportMetric(detect/n, "detect-ms")
	b.ReportMetric(restart/n, "restart-ms")
	b.ReportMetric(records/n, "records-ms")
}

// BenchmarkClusterJobManagerRestart: three TaskManagers of one slot run
// the job at parallelism 2; the JobManager is SIGKILLed and started again
// with the same flags. Figures from the new process's start: to it
// listening, its jobs recovered from the HA store (recovered-ms), to the REST API reporting
// it RUNNING (running-ms), and to the recovered run's first record in the
// sink (records-ms).
func BenchmarkClusterJobManagerRestart(b *testing.B) {
	var recovered, running, records float64
	for range b.N {
		out := b.TempDir()
		c := startHACluster(b, b.TempDir())
		for range 3 {
			c.startTaskManager(b, "1")
		}
		id := submitDetached(b, c.cluster, append([]string{"--parallelism", "2", "--checkpoint-interval", "100ms"}, sequenceArgs(failoverJob, out)...)...)
		if c.jm.awaitCheckpoints(2) == "" {
			b.Fatalf("the jobmanager ended: %s", stderrOf(c.jm))
		}
		if err := c.jm.cmd.Process.Kill(); err != nil {
			b.Fatal(err)
		}
		c.jm.wait()
		t0 := time.Now()
		c.restart(b)
		listening := time.Now()
		run := recoveredRun(b, c.jm, id)[:8]
		up := awaitRunning(b, c.cluster, id)
		flowing := awaitPart(b, out, func(r string, _ int) bool { return r == run })
		recovered += ms(listening.Sub(t0))
		running += ms(up.Sub(t0))
		records += ms(flowing.Sub(t0))
	}
	n := float64(b.N)
	b.ReportMetric(recovered/n, "recovered-ms")
	b.ReportMetric(running/n, "running-ms")
	b.ReportMetric(records/n, "records-ms")
}

// recoveredRun is the run id of job id's "job recovered" line, which the
// JobManager writes before it listens.
func recoveredRun(b *testing.B, p *proc, id string) string {
	b.Helper()
	m := regexp.MustCompile(`job recovered: job=\S+ id=` + id + ` run=([0-9a-f]{32})`).FindStringSubmatch(stderrOf(p))
	if m == nil {
		b.Fatalf("job %s was not recovered: %s", id, stderrOf(p))
	}
	return m[1]
}

// awaitRunning polls GET /jobs/:jobid until the job is RUNNING.
func awaitRunning(b *testing.B, c *cluster, id string) time.Time {
	b.Helper()
	for range 10000 {
		resp, err := http.Get("http://" + c.rest + "/jobs/" + id)
		if err != nil {
			b.Fatal(err)
		}
		var job struct{ State string }
		err = json.NewDecoder(resp.Body).Decode(&job)
		resp.Body.Close()
		if err == nil && job.State == "RUNNING" {
			return time.Now()
		}
		time.Sleep(2 * time.Millisecond) // the poll's period
	}
	b.Fatalf("job %s is not RUNNING", id)
	return time.Time{}
}
