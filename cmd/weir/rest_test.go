package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/weir-engine/weir/internal/rest/api"
)

// restJob is a `weir run` with --rest-addr: a throttled sequence job that
// runs until the test cancels it, and the address of its REST API.
type restJob struct {
	p        *proc
	base, id string
}

// restAddrLine is the first line of `weir run --rest-addr`.
var restAddrLine = regexp.MustCompile(`job sequence ([0-9a-f]{32}): REST API at (http://\S+)`)

// startRESTJob starts the job and reads where its REST API listens.
func startRESTJob(t *testing.T, args ...string) *restJob {
	t.Helper()
	args = append([]string{"run", "sequence", "--keys", "4", "--records-per-key", "1000000", "--rate", "5000",
		"--parallelism", "2", "--output", t.TempDir(), "--rest-addr", "127.0.0.1:0"}, args...)
	p := startWeir(t, args...)
	for line := range p.lines {
		if m := restAddrLine.FindStringSubmatch(line); m != nil {
			return &restJob{p: p, id: m[1], base: m[2]}
		}
	}
	_, stderr := p.wait()
	t.Fatalf("weir run printed no REST address: %s", stderr)
	return nil
}

// get GETs path and decodes the JSON answer into v (when not nil); it
// returns the raw body.
func (j *restJob) get(t *testing.T, path string, v any) []byte {
	t.Helper()
	body, status := j.fetch(t, path)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v in %s", path, err, body)
		}
	}
	return body
}

func (j *restJob) fetch(t *testing.T, path string) ([]byte, int) {
	t.Helper()
	resp, err := http.Get(j.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return body, resp.StatusCode
}

// cancel cancels the job through the API and waits for the process.
func (j *restJob) cancel(t *testing.T) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPatch, j.base+"/jobs/"+j.id+"?mode=cancel", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("cancel: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: %d", resp.StatusCode)
	}
	j.p.wait()
}

// pollInterval paces the polling of the REST API for a value to change:
// the API has no events to await. Each poll loop is bounded by
// pollTimeout, a failure only for a stuck job.
const (
	pollInterval = 50 * time.Millisecond
	pollTimeout  = 20 * time.Second
)

// await polls the REST API until cond holds; it fails the test after
// pollTimeout with what last saw.
func await(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(pollTimeout)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v; last %s", what, pollTimeout, last)
		}
		time.Sleep(pollInterval)
	}
}

// recordCounts are the source's write-records and the sink vertex's
// read-records of the job as the API shows them now (0 before the job
// published its vertices).
func recordCounts(t *testing.T, j *restJob) (written, read int64, d api.JobDetails) {
	j.get(t, "/jobs/"+j.id, &d)
	if len(d.Vertices) != 2 {
		return 0, 0, d
	}
	return d.Vertices[0].Metrics.WriteRecords, d.Vertices[1].Metrics.ReadRecords, d
}

// The counters of a running job reach the REST API while records flow,
// not only when a subtask changes state: they are non-zero and grow.
func TestRESTLiveCounters(t *testing.T) {
	j := startRESTJob(t)
	var w0, r0 int64
	await(t, "non-zero record counters", func() (bool, string) {
		var d api.JobDetails
		w0, r0, d = recordCounts(t, j)
		return d.State == "RUNNING" && w0 > 0 && r0 > 0, fmt.Sprintf("%+v", d.Vertices)
	})
	await(t, "growing record counters", func() (bool, string) {
		w, r, d := recordCounts(t, j)
		return w > w0 && r > r0, fmt.Sprintf("%+v", d.Vertices)
	})
	var d api.JobDetails
	j.get(t, "/jobs/"+j.id, &d)
	if d.Timestamps["RUNNING"] <= 0 || d.Timestamps["RUNNING"] < d.StartTime || d.MaxParallelism <= 0 || d.Vertices[0].MaxParallelism <= 0 {
		t.Errorf("timestamps %v, maxParallelism %d (vertex %d): want the time it started running and the key groups",
			d.Timestamps, d.MaxParallelism, d.Vertices[0].MaxParallelism)
	}
	j.cancel(t)
}

// GET /jobs/:jobid/checkpoints keeps a history of the latest checkpoints
// with Flink's fields, and a summary over them; details and config answer
// too.
func TestRESTCheckpointHistory(t *testing.T) {
	j := startRESTJob(t, "--checkpoint-interval", "100ms")
	var cs api.CheckpointingStatistics
	await(t, "three completed checkpoints in the history", func() (bool, string) {
		cs = api.CheckpointingStatistics{}
		j.get(t, "/jobs/"+j.id+"/checkpoints", &cs)
		return cs.Counts.Completed >= 3 && len(cs.History) >= 3, fmt.Sprintf("%+v", cs.Counts)
	})
	for i, h := range cs.History {
		if i > 0 && h.ID >= cs.History[i-1].ID {
			t.Errorf("history not newest first: %d after %d", h.ID, cs.History[i-1].ID)
		}
		if h.Status != "COMPLETED" {
			continue
		}
		if h.Class != "completed" || h.TriggerTimestamp <= 0 || h.LatestAckTimestamp < h.TriggerTimestamp ||
			h.NumSubtasks != 4 || h.NumAcknowledgedSubtasks != 4 || h.ExternalPath == "" || h.CheckpointType != "CHECKPOINT" {
			t.Errorf("history entry %+v", h)
		}
	}
	if c := cs.Latest.Completed; c == nil || c.NumSubtasks != 4 || c.TriggerTimestamp <= 0 {
		t.Errorf("latest completed %+v", c)
	}
	if cs.Summary.StateSize.Max <= 0 || cs.Summary.StateSize.Min > cs.Summary.StateSize.Max {
		t.Errorf("summary of state_size %+v: want the sizes of the completed checkpoints", cs.Summary.StateSize)
	}
	// More checkpoints than the history keeps: it stays at its size.
	await(t, "a full history", func() (bool, string) {
		cs = api.CheckpointingStatistics{}
		j.get(t, "/jobs/"+j.id+"/checkpoints", &cs)
		return cs.Counts.Completed > 12, fmt.Sprintf("%+v", cs.Counts)
	})
	if len(cs.History) != 10 {
		t.Errorf("%d entries in the history after %d checkpoints, want the latest 10", len(cs.History), cs.Counts.Completed)
	}
	var detail api.CheckpointStatistics
	j.get(t, fmt.Sprintf("/jobs/%s/checkpoints/details/%d", j.id, cs.History[1].ID), &detail)
	if detail.ID != cs.History[1].ID || detail.Status != cs.History[1].Status {
		t.Errorf("details of %d: %+v", cs.History[1].ID, detail)
	}
	if body, status := j.fetch(t, "/jobs/"+j.id+"/checkpoints/details/1"); status != http.StatusNotFound {
		t.Errorf("details of checkpoint 1, out of the history: %d %s, want 404", status, body)
	}
	var cfg api.CheckpointConfig
	j.get(t, "/jobs/"+j.id+"/checkpoints/config", &cfg)
	if cfg.Interval != 100 || cfg.MaxConcurrent != 1 || cfg.Mode != "exactly_once" {
		t.Errorf("checkpoint config %+v", cfg)
	}
	j.cancel(t)
}

// Each path answers with Flink's field names and JSON types, as the
// fixtures under testdata/flink-rest describe them (from Flink's REST API
// documentation).
func TestRESTFlinkShapes(t *testing.T) {
	j := startRESTJob(t, "--checkpoint-interval", "100ms")
	var cs api.CheckpointingStatistics
	await(t, "a completed checkpoint", func() (bool, string) {
		cs = api.CheckpointingStatistics{}
		j.get(t, "/jobs/"+j.id+"/checkpoints", &cs)
		return cs.Latest.Completed != nil, fmt.Sprintf("%+v", cs.Counts)
	})
	const sink = "00000000000000000000000000000001" // count -> file sink
	for _, tt := range []struct{ path, fixture string }{
		{"/jobs/" + j.id, "job.json"},
		{"/jobs/" + j.id + "/status", "job-status.json"},
		{"/jobs/" + j.id + "/checkpoints", "checkpoints.json"},
		{fmt.Sprintf("/jobs/%s/checkpoints/details/%d", j.id, cs.Latest.Completed.ID), "checkpoint.json"},
		{"/jobs/" + j.id + "/checkpoints/config", "checkpoint-config.json"},
		{"/jobs/" + j.id + "/exceptions", "exceptions.json"},
		{"/config", "config.json"},
		{"/jobmanager/config", "jobmanager-config.json"},
		{"/taskmanagers", "taskmanagers.json"},
		{"/taskmanagers/tm-0", "taskmanager.json"},
		{"/jobs/" + j.id + "/plan", "plan.json"},
		{"/jobs/" + j.id + "/config", "job-config.json"},
		{"/jobs/" + j.id + "/accumulators", "accumulators.json"},
		{"/jobs/" + j.id + "/vertices/" + sink, "vertex.json"},
		{"/jobs/" + j.id + "/vertices/" + sink + "/metrics?get=0.numRecordsIn", "vertex-metrics.json"},
		{"/jobs/" + j.id + "/vertices/" + sink + "/subtasks/metrics?get=numRecordsIn", "subtasks-metrics.json"},
		{"/jobs/" + j.id + "/vertices/" + sink + "/backpressure", "backpressure.json"},
		{"/jobs/" + j.id + "/vertices/" + sink + "/watermarks", "watermarks.json"},
		{"/overview", "overview.json"},
		{"/jobs/overview", "jobs-overview.json"},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", "flink-rest", tt.fixture))
		if err != nil {
			t.Fatal(err)
		}
		var w, g any
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatalf("%s: %v", tt.fixture, err)
		}
		got := j.get(t, tt.path, &g)
		for _, problem := range sameShape("", w, g) {
			t.Errorf("GET %s against %s: %s\n%s", tt.path, tt.fixture, problem, got)
		}
	}
	var plan api.JobPlan
	j.get(t, "/jobs/"+j.id+"/plan", &plan)
	if n := plan.Plan.Nodes; len(n) != 2 || len(n[1].Inputs) != 1 || n[1].Inputs[0].ID != n[0].ID || n[1].Inputs[0].ShipStrategy != "HASH" {
		t.Errorf("plan %+v: want the source hashed into the counter", plan.Plan)
	}
	// The values are live: each of these grows while the job runs.
	number := func(path string, pick func(any) any) func() float64 {
		return func() float64 {
			var v any
			j.get(t, path, &v)
			switch x := pick(v).(type) {
			case float64:
				return x
			case string:
				f, _ := strconv.ParseFloat(x, 64)
				return f
			}
			return 0
		}
	}
	at := func(keys ...any) func(any) any {
		return func(v any) any {
			for _, k := range keys {
				switch k := k.(type) {
				case string:
					m, _ := v.(map[string]any)
					v = m[k]
				case int:
					a, _ := v.([]any)
					if k >= len(a) {
						return nil
					}
					v = a[k]
				}
			}
			return v
		}
	}
	vertex := "/jobs/" + j.id + "/vertices/" + sink
	for what, read := range map[string]func() float64{
		"vertex read-records":      number("/jobs/"+j.id, at("vertices", 1, "metrics", "read-records")),
		"subtask read-records":     number(vertex, at("subtasks", 0, "metrics", "read-records")),
		"numRecordsIn metric":      number(vertex+"/metrics?get=0.numRecordsIn", at(0, "value")),
		"numRecordsIn sum":         number(vertex+"/subtasks/metrics?get=numRecordsIn", at(0, "sum")),
		"completed checkpoints":    number("/jobs/"+j.id+"/checkpoints", at("counts", "completed")),
		"job duration in overview": number("/jobs/overview", at("jobs", 0, "duration")),
	} {
		first := read()
		await(t, what+" grows", func() (bool, string) {
			n := read()
			return n > first, fmt.Sprintf("%v then %v", first, n)
		})
	}
	j.cancel(t)
}

// sameShape lists where got lacks a field of want or has another JSON
// type. A null in want matches anything; an array's elements are checked
// against want's first one (the fixtures' first element has the fields
// every element has, such as a plan's source without inputs).
func sameShape(at string, want, got any) []string {
	if want == nil {
		return nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %T, want an object", at, got)}
		}
		var out []string
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s: no field %q", at, k))
				continue
			}
			out = append(out, sameShape(at+"."+k, wv, gv)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %T, want an array", at, got)}
		}
		var out []string
		if len(w) > 0 {
			for i, gv := range g {
				out = append(out, sameShape(fmt.Sprintf("%s[%d]", at, i), w[0], gv)...)
			}
		}
		return out
	}
	if fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) {
		return []string{fmt.Sprintf("%s: %T %v, want a %T", at, got, got, want)}
	}
	return nil
}

// sourceRecordsOut is the sum over the source's subtasks of
// flink_taskmanager_job_task_numRecordsOut on the /metrics endpoint,
// which must parse with Prometheus' text parser.
func sourceRecordsOut(t *testing.T, j *restJob) float64 {
	t.Helper()
	body := j.get(t, "/metrics", nil)
	families, err := new(expfmt.TextParser).TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	var sum float64
	for _, m := range families["flink_taskmanager_job_task_numRecordsOut"].GetMetric() {
		labels := labelsOf(m)
		if labels["job_id"] == j.id && labels["task_name"] == "source-k" && labels["subtask_index"] != "" {
			sum += m.GetGauge().GetValue()
		}
	}
	return sum
}

// The Prometheus endpoint of `weir run --rest-addr` parses, and its record
// counters grow while the job runs.
func TestRESTPrometheusMetrics(t *testing.T) {
	j := startRESTJob(t)
	var first float64
	await(t, "records out of the source on /metrics", func() (bool, string) {
		first = sourceRecordsOut(t, j)
		return first > 0, fmt.Sprint(first)
	})
	await(t, "growing records out of the source on /metrics", func() (bool, string) {
		n := sourceRecordsOut(t, j)
		return n > first, fmt.Sprint(n)
	})
	j.cancel(t)
}

// A subtask's failure shows in /exceptions with Flink's taskName, the
// restart in the job's metrics, and a restore from a checkpoint in the
// checkpoints' latest.restored.
func TestRESTExceptions(t *testing.T) {
	j := startRESTJob(t, "--checkpoint-interval", "100ms", "--fail-after", "2000")
	var ex api.JobExceptions
	await(t, "a failure in the exception history", func() (bool, string) {
		ex = api.JobExceptions{}
		j.get(t, "/jobs/"+j.id+"/exceptions", &ex)
		return len(ex.ExceptionHistory.Entries) > 0, fmt.Sprintf("%+v", ex)
	})
	e := ex.ExceptionHistory.Entries[0]
	if e.TaskName == nil || !regexp.MustCompile(`^count -> file sink \([12]/2\)$`).MatchString(*e.TaskName) ||
		!strings.Contains(e.Stacktrace, "--fail-after") || e.Timestamp <= 0 {
		t.Errorf("exception %+v (task %v): want the count subtask's failure", e, e.TaskName)
	}
	var d api.JobDetails
	await(t, "the job running again", func() (bool, string) {
		j.get(t, "/jobs/"+j.id, &d)
		return d.State == "RUNNING" && d.Timestamps["RESTARTING"] > 0, fmt.Sprintf("%s %v", d.State, d.Timestamps)
	})
	var cs api.CheckpointingStatistics
	j.get(t, "/jobs/"+j.id+"/checkpoints", &cs)
	if r := cs.Latest.Restored; (r != nil) != (cs.Counts.Restored > 0) || r != nil && (r.ExternalPath == "" || r.IsSavepoint || r.RestoreTimestamp <= 0) {
		t.Errorf("restored %+v with %d restores", r, cs.Counts.Restored)
	}
	j.cancel(t)
}
