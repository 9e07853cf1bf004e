package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest/api"
	"github.com/weir-engine/weir/jobs/sequence"
)

// TestClusterReactiveScalesWithTaskManagers runs the sequence job with
// checkpoints and the exactly-once file sink on a JobManager in reactive
// mode (FLIP-159) that has one TaskManager of one slot: the job starts at
// parallelism 1, scales up to 3 when two more TaskManagers join, and down
// to 2 when one of them is SIGKILLed (it restarts from its latest
// checkpoint on the slots left, without waiting for the lost one); every
// key's sequence is committed exactly once. It waits on the REST API's
// job details (each vertex's parallelism, the rescales), not on logs.
func TestClusterReactiveScalesWithTaskManagers(t *testing.T) {
	// 6 s of input: the scaling below happens well within it.
	cfg := sequence.Config{Keys: 8, RecordsPerKey: 3000, Rate: 4000}
	cps, out := t.TempDir(), t.TempDir()
	c := startCluster(t, cps, "--scheduler-mode", "reactive", "--cooldown-after-rescaling", "200ms", "--heartbeat-timeout", "60s")
	tms := []*proc{c.startTaskManager(t, "1")}
	run := startWeir(t, "run", "--checkpoint-interval", "100ms", "--jobmanager", c.rest,
		"sequence", "--keys", strconv.Itoa(cfg.Keys), "--records-per-key", strconv.FormatInt(cfg.RecordsPerKey, 10),
		"--rate", strconv.FormatFloat(cfg.Rate, 'f', -1, 64), "--output", out)
	j := c.onlyJob(t, run)
	j.awaitParallelism(t, 1)
	if c.jm.awaitCheckpoints(1) == "" {
		t.Fatal("the jobmanager ended before a checkpoint")
	}

	// Scale up: two more TaskManagers.
	second := c.startTaskManager(t, "1")
	victim := c.startTaskManager(t, "1")
	tms = append(tms, second, victim)
	up := j.awaitParallelism(t, 3)
	if c.jm.awaitCheckpoints(1) == "" {
		t.Fatal("the jobmanager ended before a checkpoint at 3")
	}

	// Scale down: one of them killed.
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	victim.wait()
	down := j.awaitParallelism(t, 2)

	if code, stderr := run.wait(); code != 0 {
		_ = c.jm.cmd.Process.Kill()
		_, jmErr := c.jm.wait()
		t.Fatalf("run: exit %d: %s\njobmanager:\n%s%s", code, stderr, jmErr, taskManagerLogs(tms))
	}
	lines, err := sequence.CommittedLines(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, lines); err != nil {
		t.Fatalf("after scaling up and down: %v%s", err, taskManagerLogs(tms))
	}
	// Up is a rescale; down, a lost TaskManager, is a restart at what
	// is left (a failure, not a rescale): no rescale is recorded for it.
	if n := len(up.Rescales); n == 0 || up.Rescales[n-1].Reason != "parallelism can increase" || !allAt(up.Rescales[n-1].To, 3) {
		t.Errorf("rescales before the kill %+v, want the last up to 3", up.Rescales)
	}
	for _, r := range up.Rescales {
		if r.Duration < 0 || r.Timestamp <= 0 {
			t.Errorf("rescale %+v executing at its new parallelism without its duration", r)
		}
	}
	if len(down.Rescales) != len(up.Rescales) {
		t.Errorf("rescales after the kill %+v, want none more than %+v", down.Rescales, up.Rescales)
	}
}

// taskManagerLogs is what the TaskManagers tms wrote on stderr so far (with
// -v: what the sink subtasks committed and discarded), for a failure's
// message.
func taskManagerLogs(tms []*proc) string {
	var b strings.Builder
	for i, tm := range tms {
		fmt.Fprintf(&b, "\ntaskmanager %d:\n%s", i, tm.stderrSoFar())
	}
	return b.String()
}

// onlyJob is the job run submitted to c, the only one it runs, as the
// REST API lists it.
func (c *cluster) onlyJob(t *testing.T, run *proc) *restJob {
	t.Helper()
	j := &restJob{p: run, base: "http://" + c.rest}
	await(t, "the submitted job", func() (bool, string) {
		var ids api.JobIDsWithStatus
		j.get(t, "/jobs", &ids)
		if len(ids.Jobs) != 1 {
			return false, fmt.Sprintf("%+v", ids.Jobs)
		}
		j.id = ids.Jobs[0].ID
		return true, ""
	})
	return j
}

// awaitParallelism waits until the adaptive scheduler executes every
// vertex of the job at n and returns the job's details then.
func (j *restJob) awaitParallelism(t *testing.T, n int) api.JobDetails {
	t.Helper()
	var d api.JobDetails
	await(t, fmt.Sprintf("the job at parallelism %d", n), func() (bool, string) {
		d = api.JobDetails{}
		j.get(t, "/jobs/"+j.id, &d)
		if d.State == "FAILED" || d.State == "CANCELED" || d.State == "FINISHED" {
			t.Fatalf("the job ended %s before it ran at %d: %s", d.State, n, j.get(t, "/jobs/"+j.id+"/exceptions", nil))
		}
		par := make(map[string]int, len(d.Vertices))
		for _, v := range d.Vertices {
			par[v.ID] = v.Parallelism
		}
		return d.State == "RUNNING" && d.SchedulerState == "Executing" && allAt(par, n), fmt.Sprintf("state %s, scheduler %s, parallelism %v, rescales %+v", d.State, d.SchedulerState, par, d.Rescales)
	})
	return d
}

// allAt reports whether every vertex of par runs at n (and there is one).
func allAt(par map[string]int, n int) bool {
	for _, p := range par {
		if p != n {
			return false
		}
	}
	return len(par) > 0
}

// TestClusterResourceRequirements changes a running job's parallelism
// bounds through FLIP-291's REST endpoint on the JobManager process: GET
// shows each vertex's bounds (1 to the parallelism asked for), bounds
// that do not fit are refused with Flink's error body and change
// nothing, and an upper bound lowered to 1 rescales the job down to 1.
func TestClusterResourceRequirements(t *testing.T) {
	c := startCluster(t, t.TempDir(), "--cooldown-after-rescaling", "100ms")
	c.startTaskManager(t, "2")
	r := runWeir(t, "run", "--jobmanager", c.rest, "--detach", "--parallelism", "2", "--checkpoint-interval", "100ms",
		"sequence", "--keys", "4", "--records-per-key", "1000000", "--rate", "200", "--output", t.TempDir())
	if r.code != 0 {
		t.Fatalf("run --detach: exit %d, stderr %q", r.code, r.stderr)
	}
	j := c.onlyJob(t, nil)
	j.awaitParallelism(t, 2)
	path := "/jobs/" + j.id + "/resource-requirements"
	var req api.JobResourceRequirements
	j.get(t, path, &req)
	if len(req) != 2 {
		t.Fatalf("requirements %+v, want two vertices", req)
	}
	for v, b := range req {
		if b.Parallelism != (api.ParallelismBounds{LowerBound: 1, UpperBound: 2}) {
			t.Errorf("vertex %s: %+v, want 1 to 2", v, b.Parallelism)
		}
	}
	with := func(lo, hi int) api.JobResourceRequirements {
		out := make(api.JobResourceRequirements, len(req))
		for v := range req {
			out[v] = api.VertexResourceRequirements{Parallelism: api.ParallelismBounds{LowerBound: lo, UpperBound: hi}}
		}
		return out
	}
	oneMissing := with(1, 1)
	for v := range oneMissing {
		delete(oneMissing, v)
		break
	}
	for _, bad := range []struct {
		name string
		body api.JobResourceRequirements
		want string
	}{
		{"lower bound 0", with(0, 1), "is below 1"},
		{"upper below lower", with(2, 1), "below the lower bound"},
		{"above the max parallelism", with(1, 1000), "max parallelism"},
		{"a vertex missing", oneMissing, "miss vertices"},
	} {
		if code, msg := sendJSON(t, http.MethodPut, "http://"+c.rest+path, bad.body); code != http.StatusBadRequest || !strings.Contains(msg, bad.want) {
			t.Errorf("%s: %d %q, want 400 and %q", bad.name, code, msg, bad.want)
		}
	}
	if code, msg := sendJSON(t, http.MethodPut, "http://"+c.rest+path, with(1, 1)); code != http.StatusOK {
		t.Fatalf("PUT upper bound 1: %d %q", code, msg)
	}
	d := j.awaitParallelism(t, 1)
	if n := len(d.Rescales); n == 0 || d.Rescales[n-1].Reason != "parallelism must decrease" {
		t.Errorf("rescales %+v, want the last down for the lowered bound", d.Rescales)
	}
	j.get(t, path, &req)
	for v, b := range req {
		if b.Parallelism.UpperBound != 1 {
			t.Errorf("vertex %s after the PUT: %+v, want upper bound 1", v, b.Parallelism)
		}
	}
}
