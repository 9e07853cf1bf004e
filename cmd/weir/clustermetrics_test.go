package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/weir-engine/weir/internal/rest/api"
)

// tmMetricsLine is the line of `weir taskmanager --metrics-addr` that
// says where its /metrics is served.
var tmMetricsLine = regexp.MustCompile(`taskmanager \S+: metrics at (http://\S+)/metrics`)

// The Prometheus endpoints of the cluster processes: the JobManager's on
// its REST address and each TaskManager's on --metrics-addr parse with
// Prometheus' text parser, carry Flink's names and labels (the job's name
// as well as its id, which the deployments carry to the TaskManagers),
// and their record counters grow while a job runs on two TaskManager
// processes.
func TestClusterPrometheusMetrics(t *testing.T) {
	c := startCluster(t, t.TempDir())
	var tms []*restJob
	for range 2 {
		p := c.startTaskManager(t, "1", "--metrics-addr", "127.0.0.1:0")
		tms = append(tms, &restJob{base: metricsBase(t, p)})
	}
	r := runWeir(t, "run", "--jobmanager", c.rest, "--detach", "--parallelism", "2",
		"sequence", "--keys", "4", "--records-per-key", "1000000", "--rate", "2000", "--output", t.TempDir())
	if r.code != 0 || !jobID.MatchString(r.stdout) {
		t.Fatalf("run --detach: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	jm := &restJob{base: "http://" + c.rest, id: id}
	var d api.JobDetails
	jm.get(t, "/jobs/"+id, &d)
	if d.Name == "" {
		t.Fatalf("job %s has no name: %+v", id, d)
	}
	for i, tm := range tms {
		tm.id = id
		for name, j := range map[string]*restJob{"jobmanager": jm, fmt.Sprintf("taskmanager %d", i): tm} {
			var first float64
			await(t, "records out of a source subtask on the "+name+"'s /metrics", func() (bool, string) {
				first = sourceRecordsOut(t, j)
				return first > 0, fmt.Sprint(first)
			})
			await(t, "growing records out on the "+name+"'s /metrics", func() (bool, string) {
				n := sourceRecordsOut(t, j)
				return n > first, fmt.Sprint(n)
			})
		}
		// The TaskManager's load gauges: one source subtask runs on each
		// TaskManager of one slot.
		families, err := new(expfmt.TextParser).TextToMetricFamilies(bytes.NewReader(tm.get(t, "/metrics", nil)))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"numRecordsOut", "busyTimeMsPerSecond", "idleTimeMsPerSecond", "backPressuredTimeMsPerSecond", "currentInputWatermark"} {
			ms := families["flink_taskmanager_job_task_"+name].GetMetric()
			if len(ms) == 0 {
				t.Errorf("taskmanager %d: no flink_taskmanager_job_task_%s", i, name)
			}
			for _, m := range ms {
				if l := labelsOf(m); l["job_id"] != id || l["job_name"] != d.Name {
					t.Errorf("taskmanager %d: flink_taskmanager_job_task_%s labelled %v, want job_id %s and job_name %q", i, name, l, id, d.Name)
				}
			}
		}
	}
	if cancel := runWeir(t, "cancel", id, "--jobmanager", c.rest); cancel.code != 0 {
		t.Fatalf("cancel: exit %d, stderr %q", cancel.code, cancel.stderr)
	}
}

// metricsBase is where TaskManager p serves its /metrics, from its
// stderr: the line may come before or after its registration, so stderr
// so far is looked through before each wait for another line.
func metricsBase(t *testing.T, p *proc) string {
	t.Helper()
	for {
		p.mu.Lock()
		m := tmMetricsLine.FindStringSubmatch(p.stderr.String())
		p.mu.Unlock()
		if m != nil {
			return m[1]
		}
		if _, ok := <-p.lines; !ok {
			_, stderr := p.wait()
			t.Fatalf("the taskmanager ended without a metrics address: %s", stderr)
		}
	}
}

// labelsOf maps a metric's label names to their values.
func labelsOf(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
