package rest_test

import (
	"bytes"
	"encoding/json"
	"github.com/weir-engine/weir/internal/rest/api"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/rest"
)

// The answers decode into the api types that the server encodes; hasKeys
// checks, independently of them, that the keys are Flink's.

func TestOverview(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{})
	var o api.ClusterOverview
	ts.get(t, "/overview", &o)
	want := api.ClusterOverview{TaskManagers: 1, SlotsTotal: 3, JobsRunning: 2, JobsFinished: 1, JobsCancelled: 1, JobsFailed: 1, FlinkVersion: "weir"}
	if o != want {
		t.Errorf("overview %+v, want %+v", o, want)
	}
	hasKeys(t, "overview", ts.do(t, http.MethodGet, "/overview", "").body,
		"taskmanagers", "slots-total", "slots-available", "jobs-running", "jobs-finished",
		"jobs-cancelled", "jobs-failed", "flink-version", "flink-commit")
}

// clusterFake is a dispatcher that reports its cluster.
type clusterFake struct{ *fakeDispatcher }

func (clusterFake) Cluster() rest.ClusterInfo {
	return rest.ClusterInfo{TaskManagers: 3, SlotsTotal: 12, SlotsAvailable: 5}
}

func TestOverviewOfACluster(t *testing.T) {
	ts := serve(t, clusterFake{newFake()}, rest.Options{})
	var o api.ClusterOverview
	ts.get(t, "/overview", &o)
	if o.TaskManagers != 3 || o.SlotsTotal != 12 || o.SlotsAvailable != 5 {
		t.Errorf("overview %+v: want the cluster's 3 TaskManagers, 12 slots, 5 free", o)
	}
}

func TestJobs(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{})
	var got api.JobIDsWithStatus
	ts.get(t, "/jobs", &got)
	var ids []string
	for _, j := range got.Jobs {
		ids = append(ids, j.ID+" "+j.Status)
	}
	want := []string{runningID + " RUNNING", finishedID + " FINISHED", failedID + " FAILED", canceledID + " CANCELED", createdID + " CREATED"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("jobs %q, want %q", ids, want)
	}
}

func TestNoJobsIsAnEmptyList(t *testing.T) {
	ts := serve(t, &fakeDispatcher{}, rest.Options{})
	for _, path := range []string{"/jobs", "/jobs/overview"} {
		if r := ts.do(t, http.MethodGet, path, ""); strings.TrimSpace(string(r.body)) != `{"jobs":[]}` {
			t.Errorf("GET %s: %s, want {\"jobs\":[]}", path, r.body)
		}
	}
}

func TestJobsOverview(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{})
	var got api.MultipleJobsDetails
	ts.get(t, "/jobs/overview", &got)
	if len(got.Jobs) != 5 {
		t.Fatalf("%d jobs, want 5", len(got.Jobs))
	}
	running, finished, created := got.Jobs[0], got.Jobs[1], got.Jobs[4]
	start := t0.UnixMilli()
	if running.JID != runningID || running.Name != "sequence" || running.State != "RUNNING" ||
		running.StartTime != start || running.EndTime != -1 || running.Duration != 90000 || running.LastModification != start {
		t.Errorf("running job %+v: want end-time -1 and the duration up to now", running)
	}
	if running.Tasks["total"] != 5 || running.Tasks["running"] != 2 || running.Tasks["finished"] != 3 || running.Tasks["canceled"] != 0 {
		t.Errorf("running job's tasks %v: want 5 in all, 2 running, 3 finished", running.Tasks)
	}
	if finished.EndTime != start+1500 || finished.Duration != 1500 || finished.LastModification != start+1500 {
		t.Errorf("finished job %+v", finished)
	}
	if created.StartTime != -1 || created.Duration != -1 {
		t.Errorf("created job %+v: want start-time and duration -1", created)
	}
}

func TestJobDetails(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{})
	var j api.JobDetails
	ts.get(t, "/jobs/"+runningID, &j)
	if j.JID != runningID || j.Name != "sequence" || j.State != "RUNNING" || j.StartTime != t0.UnixMilli() ||
		j.EndTime != -1 || j.Duration != 90000 || j.Now != now.UnixMilli() {
		t.Errorf("job %+v", j)
	}
	if j.Timestamps["CREATED"] != t0.UnixMilli() || j.Timestamps["FINISHED"] != 0 {
		t.Errorf("timestamps %v", j.Timestamps)
	}
	if len(j.Vertices) != 2 {
		t.Fatalf("vertices %+v, want 2", j.Vertices)
	}
	v1, v2 := j.Vertices[0], j.Vertices[1]
	if v1.ID != "00000000000000000000000000000001" || v1.Name != "Source: numbers" || v1.Parallelism != 2 ||
		v1.Status != "RUNNING" || v1.Tasks["RUNNING"] != 2 || v1.Metrics.ReadRecords != 0 || v1.Metrics.WriteRecords != 100 {
		t.Errorf("vertex 1 %+v", v1)
	}
	if v2.ID != "00000000000000000000000000000002" || v2.Status != "FINISHED" || v2.Tasks["FINISHED"] != 3 ||
		v2.Metrics.ReadRecords != 100 || v2.Metrics.WriteRecords != 7 {
		t.Errorf("vertex 2 %+v: want its own status FINISHED", v2)
	}
	if j.StatusCounts["RUNNING"] != 1 || j.StatusCounts["FINISHED"] != 1 || j.StatusCounts["FAILED"] != 0 {
		t.Errorf("status-counts %v", j.StatusCounts)
	}
	r := ts.do(t, http.MethodGet, "/jobs/"+runningID, "")
	hasKeys(t, "job", r.body, "jid", "name", "isStoppable", "state", "start-time", "end-time",
		"duration", "maxParallelism", "now", "timestamps", "vertices", "status-counts")

	if j.SchedulerState != "Executing" || len(j.Rescales) != 1 {
		t.Fatalf("scheduler state %q, rescales %+v: want Executing after one rescale", j.SchedulerState, j.Rescales)
	}
	if r := j.Rescales[0]; r.From[v1.ID] != 1 || r.To[v1.ID] != 2 || r.To[v2.ID] != 3 || r.Reason != "parallelism can increase" ||
		r.Timestamp != t0.Add(time.Minute).UnixMilli() || r.Duration != 1500 {
		t.Errorf("rescale %+v", r)
	}

	var done api.JobDetails
	ts.get(t, "/jobs/"+finishedID, &done)
	if r := ts.do(t, http.MethodGet, "/jobs/"+finishedID, ""); bytes.Contains(r.body, []byte("scheduler-state")) || bytes.Contains(r.body, []byte("rescales")) {
		t.Errorf("a job on the default scheduler shows adaptive fields: %s", r.body)
	}
	if done.EndTime != t0.UnixMilli()+1500 || done.Duration != 1500 || done.Timestamps["FINISHED"] != done.EndTime ||
		done.Vertices[0].Status != "FINISHED" {
		t.Errorf("finished job %+v", done)
	}
}

func TestCheckpoints(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{})
	var got api.CheckpointingStatistics
	ts.get(t, "/jobs/"+runningID+"/checkpoints", &got)
	if got.Counts.Completed != 4 || got.Counts.Failed != 1 || got.Counts.Total != 5 || got.Counts.InProgress != 0 {
		t.Errorf("counts %+v", got.Counts)
	}
	if c := got.Latest.Completed; c == nil || c.ID != 5 || c.Status != "COMPLETED" || c.ExternalPath != "file:///cp/chk-5" {
		t.Errorf("latest completed %+v, want checkpoint 5 at file:///cp/chk-5", c)
	}
	if c := got.Latest.Completed; c != nil && (c.EndToEndDuration != 1500 || c.StateSize != 4096 || c.CheckpointedSize != 1024) {
		t.Errorf("latest completed %+v, want 1500 ms, 4096 bytes of state, 1024 written", c)
	}

	got.Latest.Completed = nil
	ts.get(t, "/jobs/"+finishedID+"/checkpoints", &got)
	if got.Latest.Completed != nil || got.Counts.Total != 0 {
		t.Errorf("a job without checkpoints: %+v", got)
	}
	r := ts.do(t, http.MethodGet, "/jobs/"+runningID+"/checkpoints", "")
	hasKeys(t, "checkpoints", r.body, "counts", "latest", "history")
	var raw struct {
		Latest json.RawMessage `json:"latest"`
	}
	decode(t, r.body, &raw)
	hasKeys(t, "latest", raw.Latest, "completed", "savepoint", "failed", "restored")
}

func TestExceptions(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{})
	var got api.JobExceptions
	ts.get(t, "/jobs/"+failedID+"/exceptions", &got)
	const want = "operator \"count\" (subtask 1/2): boom"
	if got.RootException == nil || *got.RootException != want || got.Timestamp == nil || *got.Timestamp != t0.UnixMilli()+1000 {
		t.Errorf("exceptions %+v: want root-exception %q at the job's end", got, want)
	}
	if len(got.ExceptionHistory.Entries) != 1 || got.ExceptionHistory.Entries[0].Stacktrace != want {
		t.Errorf("exceptionHistory %+v", got.ExceptionHistory)
	}

	r := ts.do(t, http.MethodGet, "/jobs/"+runningID+"/exceptions", "")
	hasKeys(t, "exceptions", r.body, "root-exception", "timestamp", "all-exceptions", "truncated", "exceptionHistory")
	got.RootException = nil
	decode(t, r.body, &got)
	if got.RootException != nil || len(got.ExceptionHistory.Entries) != 0 {
		t.Errorf("a running job's exceptions: %s", r.body)
	}
}

func TestCancel(t *testing.T) {
	for _, query := range []string{"", "?mode=cancel", "?mode=CANCEL"} {
		f := newFake()
		ts := serve(t, f, rest.Options{})
		r := ts.do(t, http.MethodPatch, "/jobs/"+runningID+query, "")
		if r.status != http.StatusAccepted || strings.TrimSpace(string(r.body)) != "{}" {
			t.Errorf("PATCH%s: %d %s, want 202 {}", query, r.status, r.body)
		}
		if !reflect.DeepEqual(f.canceled, []string{runningID}) {
			t.Errorf("PATCH%s: canceled %q", query, f.canceled)
		}
	}
}

func TestCancelErrors(t *testing.T) {
	f := newFake()
	f.cancelErr = wrap("job has already ended (FINISHED)", rest.ErrJobEnded)
	ts := serve(t, f, rest.Options{})
	for _, tt := range []struct {
		path   string
		status int
		want   string
	}{
		{"/jobs/" + unknownID, http.StatusNotFound, "job " + unknownID + " not found"},
		{"/jobs/" + finishedID, http.StatusConflict, "job has already ended (FINISHED)"},
		{"/jobs/" + runningID + "?mode=stop", http.StatusBadRequest, "POST /jobs/" + runningID + "/stop"},
		{"/jobs/" + runningID + "?mode=kill", http.StatusBadRequest, `invalid mode "kill"`},
		{"/jobs/XYZ", http.StatusBadRequest, `invalid job id "XYZ"`},
	} {
		r := ts.do(t, http.MethodPatch, tt.path, "")
		if errs := errorsOf(t, r); r.status != tt.status || !strings.Contains(errs[0], tt.want) {
			t.Errorf("PATCH %s: %d %q, want %d and %q", tt.path, r.status, errs, tt.status, tt.want)
		}
	}
}

// wrap is an error with message msg that wraps kind.
func wrap(msg string, kind error) error { return &wrapped{msg, kind} }

type wrapped struct {
	msg  string
	kind error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.kind }
