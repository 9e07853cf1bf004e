package weir

import (
	"cmp"
	"strings"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/cluster"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/rest"
)

// The REST API's view of a job of this process (see jobDirectory).

// jobInfo describes job c, whose JobMaster published s.
func jobInfo(c *JobClient, s jobmaster.Status) rest.JobInfo {
	info := rest.JobInfo{
		ID: c.JobID(), Name: c.Name(), Start: c.StartTime(), End: c.job.EndTime(),
		CheckpointConfig: checkpointConfigInfo(c.env.opts),
		Mode:             strings.ToUpper(c.env.opts.Mode.String()), Parallelism: c.env.opts.Parallelism,
		RestartStrategy: cmp.Or(c.env.opts.Restart.String(), "Cluster level default restart strategy"),
		Accumulators:    c.env.accumulators.snapshot(),
	}
	cluster.FillStatus(&info, s, c.graph)
	info.SchedulerState = s.Scheduler
	info.Requirements = requirementsInfo(s)
	for i, r := range s.Rescales {
		took := time.Duration(-1)
		if i < len(s.RescaleDurations) {
			took = s.RescaleDurations[i]
		}
		info.Rescales = append(info.Rescales, rest.RescaleInfo{From: r.From, To: r.To, Reason: r.Reason, Time: r.Now, Duration: took})
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
