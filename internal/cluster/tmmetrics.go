package cluster

import (
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// A TaskManager process's Prometheus endpoint (Flink's PrometheusReporter
// on metrics.reporter.prom.port): GET /metrics with the metrics of the
// subtasks running there, by the names and labels of the JobManager's
// /metrics, taken from each subtask's last report (its counters as it
// reported them, its load measured in its loop).

// subtaskJobs groups the running subtasks by job and vertex as the REST
// API's JobInfo (jobs and vertices by id, subtasks by index).
func subtaskJobs(running []taskmanager.RunningSubtask) []rest.JobInfo {
	var out []rest.JobInfo
	for _, r := range running {
		if len(out) == 0 || out[len(out)-1].ID != r.JobID {
			out = append(out, rest.JobInfo{ID: r.JobID, Name: r.JobName})
		}
		j := &out[len(out)-1]
		id := r.Report.ID
		if len(j.Vertices) == 0 || j.Vertices[len(j.Vertices)-1].ID != id.Vertex {
			j.Vertices = append(j.Vertices, rest.VertexInfo{ID: id.Vertex, Name: r.VertexName})
		}
		v := &j.Vertices[len(j.Vertices)-1]
		l := r.Report.Load
		v.Subtasks = append(v.Subtasks, rest.SubtaskInfo{Index: id.Subtask, Status: string(r.Report.State), Since: r.Report.Now,
			RecordsIn: r.Report.RecordsIn, RecordsOut: r.Report.RecordsOut,
			RecordsInPerSecond: l.RecordsInPerSecond, RecordsOutPerSecond: l.RecordsOutPerSecond,
			BusyTimeMsPerSecond: l.BusyTimeMsPerSecond, IdleTimeMsPerSecond: l.IdleTimeMsPerSecond,
			BackPressuredTimeMsPerSecond: l.BackPressuredTimeMsPerSecond, InputWatermark: r.Report.InputWatermark})
	}
	return out
}

// serveMetrics serves the TaskManager's /metrics on addr until Close.
func (t *TaskManager) serveMetrics(addr string) error {
	ln, err := net.Listen("tcp", orLoopback(addr))
	if err != nil {
		return fmt.Errorf("taskmanager: metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", rest.SubtaskMetricsHandler(func() []rest.JobInfo { return subtaskJobs(t.tm.Running()) }, t.log))
	t.metrics, t.metricsAddr = &http.Server{Handler: mux}, ln.Addr()
	go func() {
		if err := t.metrics.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.log.Warn("metrics server", "err", err)
		}
	}()
	return nil
}

// MetricsAddr is where its /metrics is served ("" without).
func (t *TaskManager) MetricsAddr() string {
	if t.metricsAddr == nil {
		return ""
	}
	return t.metricsAddr.String()
}
