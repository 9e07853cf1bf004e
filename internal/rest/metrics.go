package rest

import (
	"log/slog"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// GET /metrics: the jobs' metrics in Prometheus' text format, with the
// names Flink's Prometheus reporter gives them (flink_<scope>_<metric>)
// and its labels: job_id and job_name; task_id (the vertex id, as the
// REST API writes it), task_name and subtask_index for the subtasks'.
// Every value is a gauge, as Flink's reporter exports its counters too.
// The busy, idle and back-pressured time per second are measured by the
// subtask's TaskManager in the task's loop (internal/task/metrics.go).

var (
	jobLabels     = []string{"job_id", "job_name"}
	subtaskLabels = []string{"job_id", "job_name", "task_id", "task_name", "subtask_index"}
)

// jobMetric and subtaskMetric describe one metric of a job or of a
// subtask, with the function that reads its value.
type (
	jobMetric struct {
		desc  *prometheus.Desc
		value func(j JobInfo, c *collector) float64
	}
	subtaskMetric struct {
		desc  *prometheus.Desc
		value func(st SubtaskInfo) float64
	}
)

func newJobMetric(name, help string, value func(JobInfo, *collector) float64) jobMetric {
	return jobMetric{prometheus.NewDesc("flink_jobmanager_job_"+name, help, jobLabels, nil), value}
}

// subtaskMetricsOf describes the metrics of vertexMetricNames (see
// vertices.go) with their help texts.
func subtaskMetricsOf(help map[string]string) []subtaskMetric {
	var out []subtaskMetric
	for _, name := range vertexMetricNames {
		out = append(out, subtaskMetric{
			desc:  prometheus.NewDesc("flink_taskmanager_job_task_"+name, help[name], subtaskLabels, nil),
			value: func(st SubtaskInfo) float64 { v, _ := metricOf(st, name); return v },
		})
	}
	return out
}

var (
	jobMetrics = []jobMetric{
		newJobMetric("uptime", "Milliseconds the job has been running (0 when it does not run).", func(j JobInfo, c *collector) float64 {
			at, ok := j.Timestamps["RUNNING"]
			if j.State != "RUNNING" || !ok {
				return 0
			}
			return float64(max(c.s.opts.Clock.Now().Sub(at).Milliseconds(), 0))
		}),
		newJobMetric("numRestarts", "Restarts of the job after failures.", func(j JobInfo, _ *collector) float64 { return float64(j.Restarts) }),
		newJobMetric("numberOfCompletedCheckpoints", "Completed checkpoints.", func(j JobInfo, _ *collector) float64 {
			return float64(j.Checkpoints.Completed)
		}),
		newJobMetric("numberOfFailedCheckpoints", "Failed checkpoints.", func(j JobInfo, _ *collector) float64 {
			return float64(j.Checkpoints.Failed)
		}),
		newJobMetric("numberOfInProgressCheckpoints", "Checkpoints in progress.", func(j JobInfo, _ *collector) float64 {
			return float64(j.Checkpoints.InProgress)
		}),
		newJobMetric("lastCheckpointDuration", "Milliseconds the latest completed checkpoint took.", func(j JobInfo, _ *collector) float64 {
			return float64(j.Checkpoints.LatestDuration.Milliseconds())
		}),
		newJobMetric("lastCheckpointSize", "Bytes the latest completed checkpoint wrote.", func(j JobInfo, _ *collector) float64 {
			return float64(j.Checkpoints.LatestUploaded)
		}),
		newJobMetric("lastCheckpointFullSize", "Bytes of state the latest completed checkpoint references.", func(j JobInfo, _ *collector) float64 {
			return float64(j.Checkpoints.LatestSize)
		}),
	}
	subtaskMetrics = subtaskMetricsOf(map[string]string{
		"numRecordsIn":                 "Records the subtask received.",
		"numRecordsOut":                "Records the subtask sent.",
		"numRecordsInPerSecond":        "Records the subtask received per second, recently.",
		"numRecordsOutPerSecond":       "Records the subtask sent per second, recently.",
		"busyTimeMsPerSecond":          "Milliseconds per second the subtask was busy, recently.",
		"idleTimeMsPerSecond":          "Milliseconds per second the subtask waited for input, recently.",
		"backPressuredTimeMsPerSecond": "Milliseconds per second the subtask waited for an output buffer, recently.",
		"currentInputWatermark":        "The combined watermark of the subtask's inputs (minimum int64 before the first).",
	})
)

// collector is the prometheus.Collector of a Server's jobs: it reads
// them from the Dispatcher at each scrape.
type collector struct{ s *Server }

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range jobMetrics {
		ch <- m.desc
	}
	describeSubtasks(ch)
}

// Collect implements prometheus.Collector.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	jobs := c.s.d.Jobs()
	for _, j := range jobs {
		for _, m := range jobMetrics {
			ch <- prometheus.MustNewConstMetric(m.desc, prometheus.GaugeValue, m.value(j, c), j.ID, j.Name)
		}
	}
	collectSubtasks(ch, jobs)
}

func describeSubtasks(ch chan<- *prometheus.Desc) {
	for _, m := range subtaskMetrics {
		ch <- m.desc
	}
}

// collectSubtasks collects the metrics of the jobs' subtasks.
func collectSubtasks(ch chan<- prometheus.Metric, jobs []JobInfo) {
	for _, j := range jobs {
		for _, v := range j.Vertices {
			for _, st := range v.Subtasks {
				for _, m := range subtaskMetrics {
					ch <- prometheus.MustNewConstMetric(m.desc, prometheus.GaugeValue, m.value(st),
						j.ID, j.Name, vertexID(v.ID), v.Name, strconv.Itoa(st.Index))
				}
			}
		}
	}
}

// metricsHandler serves GET /metrics from a registry of the server's own.
func (s *Server) metricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(&collector{s: s})
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{s.opts.Logger}})
}

// subtasksCollector is the prometheus.Collector of the subtasks that
// jobs lists at each scrape: a TaskManager's.
type subtasksCollector struct{ jobs func() []JobInfo }

// Describe implements prometheus.Collector.
func (c subtasksCollector) Describe(ch chan<- *prometheus.Desc) { describeSubtasks(ch) }

// Collect implements prometheus.Collector.
func (c subtasksCollector) Collect(ch chan<- prometheus.Metric) { collectSubtasks(ch, c.jobs()) }

// SubtaskMetricsHandler serves the subtask metrics of the jobs that jobs
// lists (with their vertices and subtasks) in Prometheus' text format,
// with the names and labels of GET /metrics: a TaskManager's /metrics.
func SubtaskMetricsHandler(jobs func() []JobInfo, log *slog.Logger) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(subtasksCollector{jobs})
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{log}})
}

// slogPrinter passes promhttp's errors to a logger.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) { p.log.Warn("rest: /metrics", "err", v) }
