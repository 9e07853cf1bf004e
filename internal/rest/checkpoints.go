package rest

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/rest/api"
)

// The checkpoint endpoints.

// checkpoints is GET /jobs/:jobid/checkpoints.
func (s *Server) checkpoints(r *http.Request) (int, any, error) {
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	c := j.Checkpoints
	out := api.CheckpointingStatistics{
		Counts: api.CheckpointCounts{
			Restored: c.Restores, InProgress: c.InProgress,
			Total: c.Completed + c.Failed + c.InProgress, Completed: c.Completed, Failed: c.Failed,
		},
		History: make([]api.CheckpointStatistics, 0, len(c.History)),
	}
	for _, rec := range c.History {
		out.History = append(out.History, checkpointStatistics(rec))
	}
	out.Summary = summary(c.History)
	if c.Latest != "" {
		latest := latestCompleted(c)
		out.Latest.Completed = &latest
	}
	if c.LatestSavepoint != nil {
		sp := checkpointStatistics(*c.LatestSavepoint)
		out.Latest.Savepoint = &sp
	}
	if c.LatestFailed != nil {
		f := checkpointStatistics(*c.LatestFailed)
		out.Latest.Failed = &f
	}
	if rs := c.Restored; rs != nil {
		out.Latest.Restored = &api.RestoredCheckpointStatistics{ID: rs.ID, RestoreTimestamp: millis(rs.At), IsSavepoint: rs.Savepoint, ExternalPath: rs.Location}
	}
	return http.StatusOK, out, nil
}

// checkpointDetails is GET /jobs/:jobid/checkpoints/details/:checkpointid:
// a checkpoint still in the history.
func (s *Server) checkpointDetails(r *http.Request) (int, any, error) {
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	raw := r.PathValue("checkpointid")
	id, perr := strconv.ParseInt(raw, 10, 64)
	if perr != nil || id < 0 {
		return 0, nil, newError(errBadRequest, "invalid checkpoint id %q: want a non-negative integer", raw)
	}
	for _, rec := range j.Checkpoints.History {
		if rec.ID == id {
			return http.StatusOK, checkpointStatistics(rec), nil
		}
	}
	return 0, nil, newError(errNotFound, "checkpoint %d of job %s not found: it is not among the latest %d", id, j.ID, checkpoint.HistorySize)
}

// checkpointConfig is GET /jobs/:jobid/checkpoints/config; a job without
// checkpoints is answered 404, as Flink does.
func (s *Server) checkpointConfig(r *http.Request) (int, any, error) {
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	c := j.CheckpointConfig
	if c == nil {
		return 0, nil, newError(errNotFound, "checkpointing is not enabled for job %s", j.ID)
	}
	return http.StatusOK, api.CheckpointConfig{
		Mode: "exactly_once", Interval: c.Interval.Milliseconds(), Timeout: c.Timeout.Milliseconds(),
		MinPause: c.MinPause.Milliseconds(), MaxConcurrent: c.MaxConcurrent,
		Externalization:             api.CheckpointExternalization{Enabled: true, DeleteOnCancellation: false},
		StateBackend:                c.StateBackend,
		CheckpointStorage:           c.Storage,
		UnalignedCheckpoints:        c.Unaligned,
		TolerableFailedCheckpoints:  c.TolerableFailures,
		CheckpointsAfterTasksFinish: c.AfterTasksFinish,
	}, nil
}

// latestCompleted is the latest completed checkpoint: its record in the
// history when it is still there, else what Stats says of it.
func latestCompleted(c checkpoint.Stats) api.CheckpointStatistics {
	for _, rec := range c.History {
		if rec.ID == c.LatestID && rec.Status == checkpoint.StatusCompleted {
			return checkpointStatistics(rec)
		}
	}
	return api.CheckpointStatistics{
		Class: "completed", ID: c.LatestID, Status: checkpoint.StatusCompleted,
		CheckpointType: "CHECKPOINT", ExternalPath: c.Latest, Tasks: map[string]struct{}{},
		EndToEndDuration: c.LatestDuration.Milliseconds(), StateSize: c.LatestSize, CheckpointedSize: c.LatestUploaded,
	}
}

// checkpointStatistics is one record in Flink's words. Weir does not
// measure alignment or the in-flight data of unaligned checkpoints:
// alignment_buffered, processed_data and persisted_data are 0.
func checkpointStatistics(rec checkpoint.Record) api.CheckpointStatistics {
	out := api.CheckpointStatistics{
		ID: rec.ID, Status: rec.Status, IsSavepoint: rec.Kind.IsSavepoint(),
		TriggerTimestamp: millis(rec.Triggered), LatestAckTimestamp: max(millis(rec.LatestAck), 0),
		CheckpointedSize: rec.Uploaded, StateSize: rec.Size,
		NumSubtasks: rec.Subtasks, NumAcknowledgedSubtasks: rec.Acknowledged,
		CheckpointType: checkpointType(rec.Kind), Tasks: map[string]struct{}{},
	}
	if out.IsSavepoint {
		format := "CANONICAL"
		out.SavepointFormat = &format
	}
	switch rec.Status {
	case checkpoint.StatusCompleted:
		out.Class = "completed"
		out.ExternalPath = rec.Location
		out.EndToEndDuration = max(rec.Ended.Sub(rec.Triggered).Milliseconds(), 0)
	case checkpoint.StatusFailed:
		out.Class = "failed"
		out.FailureTimestamp = millis(rec.Ended)
		out.FailureMessage = rec.Failure
		out.EndToEndDuration = max(rec.Ended.Sub(rec.Triggered).Milliseconds(), 0)
	default:
		out.Class = "in_progress"
		if !rec.LatestAck.IsZero() {
			out.EndToEndDuration = max(rec.LatestAck.Sub(rec.Triggered).Milliseconds(), 0)
		}
	}
	return out
}

// checkpointType is Flink's checkpoint_type of a kind: a stop with
// savepoint is a synchronous savepoint.
func checkpointType(k checkpoint.Kind) string {
	switch k {
	case checkpoint.Checkpoint:
		return "CHECKPOINT"
	case checkpoint.Savepoint:
		return "SAVEPOINT"
	}
	return "SYNC_SAVEPOINT"
}

// summary is the distribution of each measure over the completed
// checkpoints of the history.
func summary(history []checkpoint.Record) api.CheckpointSummary {
	var uploaded, size, duration []int64
	for _, rec := range history {
		if rec.Status != checkpoint.StatusCompleted {
			continue
		}
		uploaded = append(uploaded, rec.Uploaded)
		size = append(size, rec.Size)
		duration = append(duration, max(rec.Ended.Sub(rec.Triggered).Milliseconds(), 0))
	}
	zeros := make([]int64, len(size))
	return api.CheckpointSummary{
		CheckpointedSize: statsSummary(uploaded), StateSize: statsSummary(size), EndToEndDuration: statsSummary(duration),
		AlignmentBuffered: statsSummary(zeros), ProcessedData: statsSummary(zeros), PersistedData: statsSummary(zeros),
	}
}

// statsSummary is Flink's StatsSummaryDto of values: all zero for none;
// the quantiles are nearest-rank.
func statsSummary(values []int64) api.StatsSummary {
	if len(values) == 0 {
		return api.StatsSummary{}
	}
	v := slices.Clone(values)
	slices.Sort(v)
	var sum int64
	for _, x := range v {
		sum += x
	}
	q := func(p float64) float64 {
		i := int(p*float64(len(v))+0.999999) - 1
		return float64(v[min(max(i, 0), len(v)-1)])
	}
	return api.StatsSummary{
		Min: v[0], Max: v[len(v)-1], Avg: sum / int64(len(v)),
		P50: q(0.5), P90: q(0.9), P95: q(0.95), P99: q(0.99), P999: q(0.999),
	}
}
