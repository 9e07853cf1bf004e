package cluster

import (
	"slices"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/rest"
)

// The REST API's view of a JobMaster's status: one mapping, used by the
// JobManager's Directory and by the root package's embedded jobs.

// FillStatus adds to info what status s of its JobMaster says: state,
// checkpoints, failures, restarts, vertices with their subtasks' counters
// and load. With the job graph g (nil: unknown) the vertices also carry
// their input edges and chained operators.
func FillStatus(info *rest.JobInfo, s jobmaster.Status, g *graph.JobGraph) {
	info.State, info.Checkpoints, info.Restarts = string(s.State), s.Checkpoints, s.Restarts
	if s.Failure != nil {
		info.Failure = s.Failure.Error()
	}
	if len(s.Timestamps) > 0 {
		info.Timestamps = make(map[string]time.Time, len(s.Timestamps))
		for st, at := range s.Timestamps {
			info.Timestamps[string(st)] = at
		}
	}
	for _, x := range s.Exceptions {
		info.Exceptions = append(info.Exceptions, rest.ExceptionInfo{Message: x.Err.Error(), At: x.At, Task: x.Task})
	}
	for _, v := range s.Vertices {
		vi := rest.VertexInfo{ID: v.ID, Name: v.Name, Parallelism: v.Parallelism, MaxParallelism: v.MaxParallelism,
			RecordsIn: v.RecordsIn, RecordsOut: v.RecordsOut}
		if g != nil && v.ID < len(g.Vertices) {
			vi.Inputs, vi.Operators = vertexShape(g.Vertices[v.ID])
		}
		for _, st := range s.Subtasks {
			if st.ID.Vertex == v.ID {
				vi.Subtasks = append(vi.Subtasks, subtaskInfo(st))
			}
		}
		info.MaxParallelism = max(info.MaxParallelism, v.MaxParallelism)
		info.Vertices = append(info.Vertices, vi)
	}
}

// subtaskInfo is a subtask's counters and load for the REST API.
func subtaskInfo(st jobmaster.SubtaskMetrics) rest.SubtaskInfo {
	return rest.SubtaskInfo{Index: st.ID.Subtask, Status: string(st.State), Since: st.Since, TaskManager: st.TaskManager,
		RecordsIn: st.RecordsIn, RecordsOut: st.RecordsOut,
		RecordsInPerSecond: st.RecordsInPerSecond, RecordsOutPerSecond: st.RecordsOutPerSecond,
		BusyTimeMsPerSecond: st.Load.BusyTimeMsPerSecond, IdleTimeMsPerSecond: st.Load.IdleTimeMsPerSecond,
		BackPressuredTimeMsPerSecond: st.Load.BackPressuredTimeMsPerSecond, InputWatermark: st.InputWatermark}
}

// vertexShape is the input edges of v and the names of its operators.
func vertexShape(v *graph.JobVertex) ([]rest.InputInfo, []string) {
	var inputs []rest.InputInfo
	for _, e := range v.Inputs {
		kind := e.StreamEdge.Partitioner.Kind
		if kind == graph.Default {
			kind = graph.Rebalance
			if e.Source.Parallelism == v.Parallelism {
				kind = graph.Forward
			}
		}
		inputs = append(inputs, rest.InputInfo{Source: e.Source.ID, ShipStrategy: kind.String()})
	}
	ops := make([]string, 0, len(v.Chain))
	for _, n := range v.Chain {
		ops = append(ops, n.Name)
	}
	return inputs, ops
}

// TaskManagersOf lists the TaskManagers of the jobs' statuses, by id:
// the slots the jobs occupy there are counted for each.
func TaskManagersOf(jobs map[string]jobmaster.Status) []rest.TaskManagerInfo {
	byID := map[string]*rest.TaskManagerInfo{}
	var ids []string
	for jobID, s := range jobs {
		if s.State.Terminal() {
			continue
		}
		for _, u := range s.TaskManagers {
			tm := byID[u.ID]
			if tm == nil {
				tm = &rest.TaskManagerInfo{ID: u.ID, Slots: u.Slots, Free: u.Slots, NetworkMemory: u.NetworkBytes}
				byID[u.ID] = tm
				ids = append(ids, u.ID)
			}
			tm.Free = max(tm.Free-u.Used, 0)
			for range u.Used {
				tm.Jobs = append(tm.Jobs, jobID)
			}
		}
	}
	slices.Sort(ids)
	out := make([]rest.TaskManagerInfo, 0, len(ids))
	for _, id := range ids {
		out = append(out, *byID[id])
	}
	return out
}
