package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rest/api"
)

// The paths of vertices, checkpoints and TaskManagers refuse what they
// cannot answer with Flink's error body and status.
func TestPathErrors(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{})
	v1 := "/jobs/" + runningID + "/vertices/00000000000000000000000000000001"
	for _, tt := range []struct {
		path   string
		status int
		want   string
	}{
		{"/jobs/" + runningID + "/vertices/xyz", http.StatusBadRequest, `invalid vertex id "xyz"`},
		{"/jobs/" + runningID + "/vertices/0000000000000000000000000000000f", http.StatusNotFound, "vertex 0000000000000000000000000000000f of job"},
		{"/jobs/" + unknownID + "/vertices/00000000000000000000000000000001", http.StatusNotFound, "job " + unknownID + " not found"},
		{v1 + "/subtasks/metrics?get=numRecordsIn&agg=median", http.StatusBadRequest, `invalid agg "median"`},
		{"/jobs/" + runningID + "/checkpoints/details/x", http.StatusBadRequest, `invalid checkpoint id "x"`},
		{"/jobs/" + runningID + "/checkpoints/details/5", http.StatusNotFound, "checkpoint 5 of job"},
		{"/jobs/" + finishedID + "/checkpoints/config", http.StatusNotFound, "checkpointing is not enabled"},
		{"/taskmanagers/tm-9", http.StatusNotFound, `taskmanager "tm-9" not found`},
	} {
		r := ts.do(t, http.MethodGet, tt.path, "")
		if errs := errorsOf(t, r); r.status != tt.status || !strings.Contains(errs[0], tt.want) {
			t.Errorf("GET %s: %d %q, want %d and %q", tt.path, r.status, errs, tt.status, tt.want)
		}
	}
}

// A vertex's subtasks and their metrics, one by one and aggregated.
func TestVertexPaths(t *testing.T) {
	f := newFake()
	f.jobs[0].Vertices[0].Subtasks = []rest.SubtaskInfo{
		{Index: 0, Status: "RUNNING", Since: t0, RecordsOut: 30, TaskManager: "tm-0"},
		{Index: 1, Status: "RUNNING", Since: t0, RecordsOut: 70, TaskManager: "tm-1"},
	}
	ts := serve(t, f, rest.Options{})
	base := "/jobs/" + runningID + "/vertices/00000000000000000000000000000001"
	var d api.JobVertexDetails
	ts.get(t, base, &d)
	if len(d.Subtasks) != 2 || d.Subtasks[1].Metrics.WriteRecords != 70 || d.Subtasks[1].TaskManagerID != "tm-1" ||
		d.Subtasks[0].StartTime != t0.UnixMilli() || d.Subtasks[0].Duration != now.Sub(t0).Milliseconds() {
		t.Errorf("vertex details %+v", d)
	}
	var ms []api.Metric
	ts.get(t, base+"/metrics?get=1.numRecordsOut,0.numRecordsOut", &ms)
	if len(ms) != 2 || ms[0] != (api.Metric{ID: "0.numRecordsOut", Value: "30"}) || ms[1] != (api.Metric{ID: "1.numRecordsOut", Value: "70"}) {
		t.Errorf("metrics %+v", ms)
	}
	var agg []api.AggregatedMetric
	ts.get(t, base+"/subtasks/metrics?get=numRecordsOut&agg=sum,max", &agg)
	if len(agg) != 1 || agg[0].Sum == nil || *agg[0].Sum != 100 || agg[0].Max == nil || *agg[0].Max != 70 || agg[0].Min != nil {
		t.Errorf("aggregated %+v: want sum 100, max 70, no min", agg)
	}
}

// A vertex's back-pressure is its subtasks' measured load as Flink's
// ratios, the vertex at its worst subtask's level; its watermarks are
// the subtasks' input watermarks.
func TestBackPressureAndWatermarks(t *testing.T) {
	f := newFake()
	f.jobs[0].Vertices[0].Subtasks = []rest.SubtaskInfo{
		{Index: 0, Status: "RUNNING", BusyTimeMsPerSecond: 900, IdleTimeMsPerSecond: 100, InputWatermark: 1000},
		{Index: 1, Status: "RUNNING", BusyTimeMsPerSecond: 200, BackPressuredTimeMsPerSecond: 800, InputWatermark: -9223372036854775808},
	}
	ts := serve(t, f, rest.Options{})
	base := "/jobs/" + runningID + "/vertices/00000000000000000000000000000001"
	var bp api.JobVertexBackPressure
	ts.get(t, base+"/backpressure", &bp)
	want := api.JobVertexBackPressure{Status: "ok", BackPressureLevel: "high", BackPressureLevelOld: "high", EndTimestamp: now.UnixMilli(),
		Subtasks: []api.SubtaskBackPressure{
			{Subtask: 0, BackPressureLevel: "ok", BackPressureLevelOld: "ok", Ratio: 0, IdleRatio: 0.1, BusyRatio: 0.9},
			{Subtask: 1, BackPressureLevel: "high", BackPressureLevelOld: "high", Ratio: 0.8, IdleRatio: 0, BusyRatio: 0.2},
		}}
	if len(bp.Subtasks) != 2 || bp.Status != want.Status || bp.BackPressureLevel != want.BackPressureLevel ||
		bp.EndTimestamp != want.EndTimestamp || bp.Subtasks[0] != want.Subtasks[0] || bp.Subtasks[1] != want.Subtasks[1] {
		t.Errorf("backpressure %+v, want %+v", bp, want)
	}
	var wms []api.Metric
	ts.get(t, base+"/watermarks", &wms)
	if len(wms) != 2 || wms[0] != (api.Metric{ID: "0.currentInputWatermark", Value: "1000"}) ||
		wms[1] != (api.Metric{ID: "1.currentInputWatermark", Value: "-9223372036854775808"}) {
		t.Errorf("watermarks %+v", wms)
	}
	var ms []api.Metric
	ts.get(t, base+"/metrics?get=1.backPressuredTimeMsPerSecond,0.currentInputWatermark", &ms)
	if len(ms) != 2 || ms[0] != (api.Metric{ID: "0.currentInputWatermark", Value: "1000"}) || ms[1] != (api.Metric{ID: "1.backPressuredTimeMsPerSecond", Value: "800"}) {
		t.Errorf("metrics %+v", ms)
	}
}
