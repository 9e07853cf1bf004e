package rest

import (
	"strings"
	"time"
)

// jobStates are Flink's job states, the keys of a job's "timestamps".
var jobStates = []string{
	"INITIALIZING", "CREATED", "RUNNING", "FAILING", "FAILED", "CANCELLING",
	"CANCELED", "FINISHED", "RESTARTING", "SUSPENDED", "RECONCILING",
}

// executionStates are Flink's execution states of a subtask, the keys of
// the task counts.
var executionStates = []string{
	"CREATED", "SCHEDULED", "DEPLOYING", "RUNNING", "FINISHED", "CANCELING",
	"CANCELED", "FAILED", "RECONCILING", "INITIALIZING",
}

// terminal reports whether a job in state has ended for good.
func terminal(state string) bool {
	switch state {
	case "FINISHED", "CANCELED", "FAILED":
		return true
	}
	return false
}

// vertexStatus is the execution state of a vertex: its own when the
// Dispatcher knows it, else the one its subtasks have while the job is in
// state (a failing or restarting job is canceling its tasks).
func vertexStatus(v VertexInfo, state string) string {
	if v.Status != "" {
		return v.Status
	}
	switch state {
	case "RUNNING", "FINISHED", "CANCELED", "FAILED":
		return state
	case "CANCELLING", "FAILING":
		return "CANCELING"
	}
	return "CREATED"
}

// taskCounts counts the subtasks of a job's vertices by execution state,
// all states present; lower turns the keys lower-case (as /jobs/overview
// has them) and adds "total".
func taskCounts(j JobInfo, lower bool) map[string]int {
	m := make(map[string]int, len(executionStates)+1)
	key := func(s string) string {
		if lower {
			return strings.ToLower(s)
		}
		return s
	}
	for _, s := range executionStates {
		m[key(s)] = 0
	}
	total := 0
	for _, v := range j.Vertices {
		m[key(vertexStatus(v, j.State))] += v.Parallelism
		total += v.Parallelism
	}
	if lower {
		m["total"] = total
	}
	return m
}

// millis is t in milliseconds since the epoch, -1 for the zero time (an
// end not reached yet), as Flink writes it.
func millis(t time.Time) int64 {
	if t.IsZero() {
		return -1
	}
	return t.UnixMilli()
}

// duration is a job's run time in milliseconds: to its end, or to now
// while it runs; -1 before it started.
func duration(j JobInfo, now time.Time) int64 {
	switch {
	case j.Start.IsZero():
		return -1
	case j.End.IsZero():
		return max(now.Sub(j.Start).Milliseconds(), 0)
	}
	return max(j.End.Sub(j.Start).Milliseconds(), 0)
}
