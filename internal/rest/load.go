package rest

import (
	"net/http"
	"strconv"

	"github.com/weir-engine/weir/internal/rest/api"
)

// The load of a vertex's subtasks as Flink's dashboard reads it: the
// back-pressure of each (from the back-pressured, idle and busy time its
// TaskManager measured in the task's loop, reported every
// taskmanager.DefaultMetricsInterval) and their input watermarks.

// backPressure is GET /jobs/:jobid/vertices/:vertexid/backpressure. As
// in Flink since it measures back-pressured time, the answer is always
// "ok" (never "deprecated") and the vertex's level is its worst
// subtask's.
func (s *Server) backPressure(r *http.Request) (int, any, error) {
	j, v, err := s.vertex(r)
	if err != nil {
		return 0, nil, err
	}
	out := api.JobVertexBackPressure{Status: "ok", EndTimestamp: s.opts.Clock.Now().UnixMilli(), Subtasks: []api.SubtaskBackPressure{}}
	worst := 0.0
	for _, st := range v.Subtasks {
		ratio := st.BackPressuredTimeMsPerSecond / 1000
		level := backPressureLevel(ratio)
		out.Subtasks = append(out.Subtasks, api.SubtaskBackPressure{Subtask: st.Index, AttemptNumber: j.Restarts,
			BackPressureLevel: level, BackPressureLevelOld: level, Ratio: ratio,
			IdleRatio: st.IdleTimeMsPerSecond / 1000, BusyRatio: st.BusyTimeMsPerSecond / 1000})
		worst = max(worst, ratio)
	}
	out.BackPressureLevel = backPressureLevel(worst)
	out.BackPressureLevelOld = out.BackPressureLevel
	return http.StatusOK, out, nil
}

// watermarks is GET /jobs/:jobid/vertices/:vertexid/watermarks: each
// subtask's "<subtask>.currentInputWatermark", as Flink lists it
// (math.MinInt64 before the first watermark, and for a source).
func (s *Server) watermarks(r *http.Request) (int, any, error) {
	_, v, err := s.vertex(r)
	if err != nil {
		return 0, nil, err
	}
	out := make([]api.Metric, 0, len(v.Subtasks))
	for _, st := range v.Subtasks {
		out = append(out, api.Metric{ID: strconv.Itoa(st.Index) + ".currentInputWatermark", Value: strconv.FormatInt(st.InputWatermark, 10)})
	}
	return http.StatusOK, out, nil
}

// backPressureLevel is Flink's level of a back-pressure ratio (the share
// of time back-pressured, 0 to 1): "ok" up to 0.1, "low" up to 0.5,
// "high" above.
func backPressureLevel(ratio float64) string {
	switch {
	case ratio <= 0.1:
		return "ok"
	case ratio <= 0.5:
		return "low"
	default:
		return "high"
	}
}
