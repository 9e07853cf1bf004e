package taskmanager

import (
	"slices"
	"strings"
)

// RunningSubtask is a subtask running on the TaskManager, with its last
// report (counters and load): what the TaskManager's own metrics show.
type RunningSubtask struct {
	JobID, JobName string
	VertexName     string
	Report         Report
}

// Running lists the subtasks that run and have reported, by job, vertex
// and subtask, each with the report it sent last.
func (tm *TaskManager) Running() []RunningSubtask {
	tm.mu.Lock()
	out := make([]RunningSubtask, 0, len(tm.mu.running))
	for k, rt := range tm.mu.running {
		if r := rt.reports.lastReport(); !r.Now.IsZero() {
			out = append(out, RunningSubtask{JobID: k.job, JobName: rt.jobName, VertexName: rt.vertexName, Report: r})
		}
	}
	tm.mu.Unlock()
	slices.SortFunc(out, func(a, b RunningSubtask) int {
		if c := strings.Compare(a.JobID, b.JobID); c != 0 {
			return c
		}
		if a.Report.ID.Vertex != b.Report.ID.Vertex {
			return a.Report.ID.Vertex - b.Report.ID.Vertex
		}
		return a.Report.ID.Subtask - b.Report.ID.Subtask
	})
	return out
}
