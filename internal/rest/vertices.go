package rest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/weir-engine/weir/internal/rest/api"
)

// The endpoints of a job's vertices and plan, and their metrics.

// vertexMetricNames are the metrics a subtask has, by Flink's names.
var vertexMetricNames = []string{"numRecordsIn", "numRecordsOut", "numRecordsInPerSecond", "numRecordsOutPerSecond",
	"busyTimeMsPerSecond", "idleTimeMsPerSecond", "backPressuredTimeMsPerSecond", "currentInputWatermark"}

// metricOf is the value of metric name of st, and whether it has it.
func metricOf(st SubtaskInfo, name string) (float64, bool) {
	switch name {
	case "numRecordsIn":
		return float64(st.RecordsIn), true
	case "numRecordsOut":
		return float64(st.RecordsOut), true
	case "numRecordsInPerSecond":
		return st.RecordsInPerSecond, true
	case "numRecordsOutPerSecond":
		return st.RecordsOutPerSecond, true
	case "busyTimeMsPerSecond":
		return st.BusyTimeMsPerSecond, true
	case "idleTimeMsPerSecond":
		return st.IdleTimeMsPerSecond, true
	case "backPressuredTimeMsPerSecond":
		return st.BackPressuredTimeMsPerSecond, true
	case "currentInputWatermark":
		return float64(st.InputWatermark), true
	}
	return 0, false
}

// metricText is a metric's value as Flink's MetricCollectionResponseBody
// writes it: a string, integral for the counters and the watermark.
func metricText(st SubtaskInfo, name string) string {
	switch name {
	case "numRecordsIn":
		return strconv.FormatInt(st.RecordsIn, 10)
	case "numRecordsOut":
		return strconv.FormatInt(st.RecordsOut, 10)
	case "currentInputWatermark":
		return strconv.FormatInt(st.InputWatermark, 10)
	}
	v, _ := metricOf(st, name)
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// vertex looks up the job and the vertex of the request's path.
func (s *Server) vertex(r *http.Request) (JobInfo, VertexInfo, error) {
	j, err := s.job(r)
	if err != nil {
		return JobInfo{}, VertexInfo{}, err
	}
	raw := r.PathValue("vertexid")
	if !isHexID(raw) {
		return JobInfo{}, VertexInfo{}, newError(errBadRequest, "invalid vertex id %q: want 32 lower-case hex characters", raw)
	}
	for _, v := range j.Vertices {
		if vertexID(v.ID) == raw {
			return j, v, nil
		}
	}
	return JobInfo{}, VertexInfo{}, newError(errNotFound, "vertex %s of job %s not found", raw, j.ID)
}

// vertexDetails is GET /jobs/:jobid/vertices/:vertexid.
func (s *Server) vertexDetails(r *http.Request) (int, any, error) {
	j, v, err := s.vertex(r)
	if err != nil {
		return 0, nil, err
	}
	now := s.opts.Clock.Now()
	out := api.JobVertexDetails{ID: vertexID(v.ID), Name: v.Name, MaxParallelism: maxParallelism(v.MaxParallelism),
		Parallelism: v.Parallelism, Now: now.UnixMilli(), Subtasks: []api.SubtaskAttemptDetails{}}
	for _, st := range v.Subtasks {
		start := millis(st.Since)
		d := api.SubtaskAttemptDetails{
			Subtask: st.Index, Status: st.Status, Attempt: j.Restarts, Endpoint: st.TaskManager,
			StartTime: start, EndTime: -1, Duration: max(now.Sub(st.Since).Milliseconds(), 0),
			Metrics: api.IOMetrics{ReadRecords: st.RecordsIn, ReadRecordsComplete: true,
				WriteRecords: st.RecordsOut, WriteRecordsComplete: true},
			TaskManagerID: st.TaskManager, StatusDuration: map[string]int64{},
		}
		if terminal(st.Status) || st.Status == "CANCELED" {
			d.EndTime, d.Duration = start, 0
		}
		out.Subtasks = append(out.Subtasks, d)
	}
	return http.StatusOK, out, nil
}

// requested is the metric names of ?get=a,b (nil: none asked for).
func requested(r *http.Request) []string {
	get := r.URL.Query().Get("get")
	if get == "" {
		return nil
	}
	return strings.Split(get, ",")
}

// vertexMetrics is GET /jobs/:jobid/vertices/:vertexid/metrics: the
// subtasks' metrics as "<subtask>.<name>", listed, or with their values
// for ?get=.
func (s *Server) vertexMetrics(r *http.Request) (int, any, error) {
	_, v, err := s.vertex(r)
	if err != nil {
		return 0, nil, err
	}
	out := []api.Metric{}
	get := requested(r)
	for _, st := range v.Subtasks {
		for _, name := range vertexMetricNames {
			id := strconv.Itoa(st.Index) + "." + name
			switch {
			case get == nil:
				out = append(out, api.Metric{ID: id})
			case slices.Contains(get, id):
				out = append(out, api.Metric{ID: id, Value: metricText(st, name)})
			}
		}
	}
	return http.StatusOK, out, nil
}

// subtasksMetrics is GET /jobs/:jobid/vertices/:vertexid/subtasks/metrics:
// the metric names, or for ?get= each one's min, max, avg and sum over
// the subtasks (?agg= picks among them).
func (s *Server) subtasksMetrics(r *http.Request) (int, any, error) {
	_, v, err := s.vertex(r)
	if err != nil {
		return 0, nil, err
	}
	get := requested(r)
	if get == nil {
		out := make([]api.Metric, 0, len(vertexMetricNames))
		for _, name := range vertexMetricNames {
			out = append(out, api.Metric{ID: name})
		}
		return http.StatusOK, out, nil
	}
	aggs := []string{"min", "max", "avg", "sum"}
	if a := r.URL.Query().Get("agg"); a != "" {
		aggs = strings.Split(a, ",")
		for _, x := range aggs {
			if !slices.Contains([]string{"min", "max", "avg", "sum", "skew"}, x) {
				return 0, nil, newError(errBadRequest, "invalid agg %q: want min, max, avg or sum", x)
			}
		}
	}
	out := []api.AggregatedMetric{}
	for _, name := range get {
		var values []float64
		for _, st := range v.Subtasks {
			if val, ok := metricOf(st, name); ok {
				values = append(values, val)
			}
		}
		if len(values) == 0 {
			continue
		}
		m := api.AggregatedMetric{ID: name}
		sum := 0.0
		for _, x := range values {
			sum += x
		}
		mn, mx, avg := slices.Min(values), slices.Max(values), sum/float64(len(values))
		for _, a := range aggs {
			switch a {
			case "min":
				m.Min = &mn
			case "max":
				m.Max = &mx
			case "avg":
				m.Avg = &avg
			case "sum":
				m.Sum = &sum
			}
		}
		out = append(out, m)
	}
	return http.StatusOK, out, nil
}

// jobPlan is GET /jobs/:jobid/plan.
func (s *Server) jobPlan(r *http.Request) (int, any, error) {
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	p := api.Plan{JID: j.ID, Name: j.Name, Type: jobType(j), Nodes: []api.PlanNode{}}
	for _, v := range j.Vertices {
		n := api.PlanNode{ID: vertexID(v.ID), Parallelism: v.Parallelism, Operator: "", OperatorStrategy: "",
			Description: strings.Join(v.Operators, "<br/>"), OptimizerProperties: map[string]string{}}
		if n.Description == "" {
			n.Description = v.Name
		}
		for i, in := range v.Inputs {
			n.Inputs = append(n.Inputs, api.PlanInput{Num: i, ID: vertexID(in.Source), ShipStrategy: in.ShipStrategy, Exchange: "pipelined_bounded"})
		}
		p.Nodes = append(p.Nodes, n)
	}
	return http.StatusOK, api.JobPlan{Plan: p}, nil
}

// jobType is Flink's job type: STREAMING or BATCH.
func jobType(j JobInfo) string {
	if j.Mode == "" {
		return "STREAMING"
	}
	return j.Mode
}

// jobConfig is GET /jobs/:jobid/config.
func (s *Server) jobConfig(r *http.Request) (int, any, error) {
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	mode := "PIPELINED"
	if jobType(j) == "BATCH" {
		mode = "BATCH"
	}
	return http.StatusOK, api.JobConfig{JID: j.ID, Name: j.Name, ExecutionConfig: api.ExecutionConfig{
		ExecutionMode: mode, RestartStrategy: j.RestartStrategy, JobParallelism: j.Parallelism, UserConfig: map[string]string{},
	}}, nil
}

// accumulators is GET /jobs/:jobid/accumulators: the user's counters.
func (s *Server) accumulators(r *http.Request) (int, any, error) {
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	out := api.JobAccumulators{JobAccumulators: []struct{}{}, UserTaskAccumulators: []api.UserAccumulator{},
		SerializedUserTaskAccumulators: map[string]struct{}{}}
	names := make([]string, 0, len(j.Accumulators))
	for name := range j.Accumulators {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		out.UserTaskAccumulators = append(out.UserTaskAccumulators, api.UserAccumulator{Name: name, Type: "LongCounter",
			Value: strconv.FormatInt(j.Accumulators[name], 10)})
	}
	return http.StatusOK, out, nil
}
