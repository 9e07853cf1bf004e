package rest_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/rest"
)

// GET /metrics is Prometheus' text format, with Flink's metric names and
// labels: a job's metrics by job, a subtask's by job, vertex and subtask.
func TestPrometheusMetrics(t *testing.T) {
	f := &fakeDispatcher{jobs: []rest.JobInfo{{
		ID: runningID, Name: "sequence", State: "RUNNING", Start: t0, Restarts: 2,
		Timestamps: map[string]time.Time{"RUNNING": t0.Add(10 * time.Second)},
		Vertices: []rest.VertexInfo{{ID: 3, Name: "count", Parallelism: 2, Subtasks: []rest.SubtaskInfo{
			{Index: 0, Status: "RUNNING", RecordsIn: 40, RecordsOut: 4, RecordsInPerSecond: 12.5},
			{Index: 1, Status: "RUNNING", RecordsIn: 60, RecordsOut: 6},
		}}},
		Checkpoints: checkpoint.Stats{Completed: 7, Failed: 1, LatestDuration: 250 * time.Millisecond, LatestUploaded: 2048},
	}}}
	ts := serve(t, f, rest.Options{})
	r := ts.do(t, http.MethodGet, "/metrics", "")
	if r.status != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", r.status, r.body)
	}
	families, err := new(expfmt.TextParser).TextToMetricFamilies(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, r.body)
	}
	job := map[string]string{"job_id": runningID, "job_name": "sequence"}
	subtask := func(i string) map[string]string {
		return map[string]string{"job_id": runningID, "job_name": "sequence", "task_id": "00000000000000000000000000000003",
			"task_name": "count", "subtask_index": i}
	}
	for _, tt := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"flink_jobmanager_job_uptime", job, 80000}, // now is t0+90s
		{"flink_jobmanager_job_numRestarts", job, 2},
		{"flink_jobmanager_job_numberOfCompletedCheckpoints", job, 7},
		{"flink_jobmanager_job_numberOfFailedCheckpoints", job, 1},
		{"flink_jobmanager_job_lastCheckpointDuration", job, 250},
		{"flink_jobmanager_job_lastCheckpointSize", job, 2048},
		{"flink_taskmanager_job_task_numRecordsIn", subtask("0"), 40},
		{"flink_taskmanager_job_task_numRecordsIn", subtask("1"), 60},
		{"flink_taskmanager_job_task_numRecordsOut", subtask("1"), 6},
		{"flink_taskmanager_job_task_numRecordsInPerSecond", subtask("0"), 12.5},
	} {
		got, ok := metricValue(families[tt.name], tt.labels)
		if !ok || got != tt.want {
			t.Errorf("%s%v = %v (found %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
}

// metricValue is the value of the metric of family f whose labels are
// exactly labels.
func metricValue(f *dto.MetricFamily, labels map[string]string) (float64, bool) {
	if f == nil {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.GetLabel() {
			match = match && labels[l.GetName()] == l.GetValue()
		}
		if match {
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}
