package weir

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/rest"
)

// The REST API's view of a job of this process (see jobDirectory).

// jobInfo describes job c, whose JobMaster published s.
func jobInfo(c *JobClient, s jobmaster.Status) rest.JobInfo {
	info := rest.JobInfo{
		ID: c.JobID(), Name: c.Name(), State: string(s.State), Start: c.StartTime(), End: c.job.EndTime(),
		Checkpoints: s.Checkpoints, Restarts: s.Restarts, CheckpointConfig: checkpointConfigInfo(c.env.opts),
		Mode: strings.ToUpper(c.env.opts.Mode.String()), Parallelism: c.env.opts.Parallelism,
		RestartStrategy: cmp.Or(c.env.opts.Restart.String(), "Cluster level default restart strategy"),
		Accumulators:    c.env.accumulators.snapshot(),
	}
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
		if c.graph != nil && v.ID < len(c.graph.Vertices) {
			vi.Inputs, vi.Operators = vertexShape(c.graph.Vertices[v.ID])
		}
		for _, st := range s.Subtasks {
			if st.ID.Vertex == v.ID {
				vi.Subtasks = append(vi.Subtasks, rest.SubtaskInfo{Index: st.ID.Subtask, Status: string(st.State), Since: st.Since, TaskManager: st.TaskManager,
					RecordsIn: st.RecordsIn, RecordsOut: st.RecordsOut,
					RecordsInPerSecond: st.RecordsInPerSecond, RecordsOutPerSecond: st.RecordsOutPerSecond})
			}
		}
		info.MaxParallelism = max(info.MaxParallelism, v.MaxParallelism)
		info.Vertices = append(info.Vertices, vi)
	}
	return info
}

// checkpointConfigInfo is the checkpoint configuration of o for the REST
// API (nil without checkpoints).
func checkpointConfigInfo(o Options) *rest.CheckpointConfig {
	c := o.Checkpoints
	if c == nil {
		return nil
	}
	storage := c.Dir
	if storage == "" {
		storage = "(temporary directory)"
	}
	return &rest.CheckpointConfig{
		Interval: c.Interval, Timeout: cmp.Or(c.Timeout, checkpoint.DefaultTimeout), MinPause: c.MinPause,
		MaxConcurrent: cmp.Or(c.MaxConcurrent, checkpoint.DefaultMaxConcurrent), TolerableFailures: c.TolerableFailures,
		Unaligned: c.Unaligned, AfterTasksFinish: !c.DisableCheckpointsAfterTasksFinish,
		StateBackend: o.StateBackend.Kind.String(), Storage: storage,
	}
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

// taskManagersOf lists the TaskManagers of the jobs' statuses, by id:
// the slots the jobs occupy there are counted for each.
func taskManagersOf(jobs map[string]jobmaster.Status) []rest.TaskManagerInfo {
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
