package weir

import (
	"cmp"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/rest"
)

// The REST API's view of a job of this process (see jobDirectory).

// jobInfo describes job c, whose JobMaster published s.
func jobInfo(c *JobClient, s jobmaster.Status) rest.JobInfo {
	info := rest.JobInfo{
		ID: c.JobID(), Name: c.Name(), State: string(s.State), Start: c.StartTime(), End: c.job.EndTime(),
		Checkpoints: s.Checkpoints, Restarts: s.Restarts, CheckpointConfig: checkpointConfigInfo(c.env.opts),
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
		for _, st := range s.Subtasks {
			if st.ID.Vertex == v.ID {
				vi.Subtasks = append(vi.Subtasks, rest.SubtaskInfo{Index: st.ID.Subtask, Status: string(st.State), Since: st.Since,
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
