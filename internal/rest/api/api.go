// Package api defines the JSON bodies of Weir's REST API, once: the
// server in internal/rest encodes them, the CLI's client and the tests
// decode them. Field names are Flink's (its rest_v1_dispatcher.yml and the
// serializers of its REST messages), so that tools written for Flink's
// REST API read Weir's.
package api

// ClusterOverview is Flink's ClusterOverviewWithVersion (GET /overview).
type ClusterOverview struct {
	TaskManagers   int    `json:"taskmanagers"`
	SlotsTotal     int    `json:"slots-total"`
	SlotsAvailable int    `json:"slots-available"`
	JobsRunning    int    `json:"jobs-running"`
	JobsFinished   int    `json:"jobs-finished"`
	JobsCancelled  int    `json:"jobs-cancelled"`
	JobsFailed     int    `json:"jobs-failed"`
	FlinkVersion   string `json:"flink-version"`
	FlinkCommit    string `json:"flink-commit"`
}

// JobIDsWithStatus is Flink's JobIdsWithStatusOverview (GET /jobs).
type JobIDsWithStatus struct {
	Jobs []JobIDWithStatus `json:"jobs"`
}

// JobIDWithStatus is one job of JobIDsWithStatus.
type JobIDWithStatus struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// JobStatus is Flink's JobStatusInfo (GET /jobs/:jobid/status).
type JobStatus struct {
	Status string `json:"status"`
}

// MultipleJobsDetails is Flink's MultipleJobsDetails (GET /jobs/overview).
type MultipleJobsDetails struct {
	Jobs []JobOverview `json:"jobs"`
}

// JobOverview is Flink's JobDetails: one job of /jobs/overview. Tasks
// counts subtasks by lower-case execution state, and "total".
type JobOverview struct {
	JID              string         `json:"jid"`
	Name             string         `json:"name"`
	State            string         `json:"state"`
	StartTime        int64          `json:"start-time"`
	EndTime          int64          `json:"end-time"`
	Duration         int64          `json:"duration"`
	LastModification int64          `json:"last-modification"`
	Tasks            map[string]int `json:"tasks"`
}

// JobDetails is Flink's JobDetailsInfo (GET /jobs/:jobid).
type JobDetails struct {
	JID            string           `json:"jid"`
	Name           string           `json:"name"`
	IsStoppable    bool             `json:"isStoppable"`
	State          string           `json:"state"`
	JobType        string           `json:"job-type"`
	StartTime      int64            `json:"start-time"`
	EndTime        int64            `json:"end-time"`
	Duration       int64            `json:"duration"`
	MaxParallelism int              `json:"maxParallelism"`
	Now            int64            `json:"now"`
	Timestamps     map[string]int64 `json:"timestamps"`
	Vertices       []VertexDetails  `json:"vertices"`
	StatusCounts   map[string]int   `json:"status-counts"`
	// SchedulerState and Rescales are Weir's, for a job on the adaptive
	// scheduler (absent otherwise): its state ("Executing") and its
	// rescales, oldest first.
	SchedulerState string    `json:"scheduler-state,omitempty"`
	Rescales       []Rescale `json:"rescales,omitempty"`
}

// JobResourceRequirements are FLIP-291's body of GET and PUT
// /jobs/:jobid/resource-requirements: each vertex's parallelism bounds by
// vertex id.
type JobResourceRequirements map[string]VertexResourceRequirements

// VertexResourceRequirements are one vertex's requirements.
type VertexResourceRequirements struct {
	Parallelism ParallelismBounds `json:"parallelism"`
}

// ParallelismBounds are the least and most subtasks a vertex runs with.
type ParallelismBounds struct {
	LowerBound int `json:"lowerBound"`
	UpperBound int `json:"upperBound"`
}

// Rescale is one rescale of a job on the adaptive scheduler: each
// vertex's parallelism before and after, by vertex id, why, and when
// (epoch milliseconds).
type Rescale struct {
	From      map[string]int `json:"from"`
	To        map[string]int `json:"to"`
	Reason    string         `json:"reason"`
	Timestamp int64          `json:"timestamp"`
	// Duration is how long the rescale took in milliseconds, from the
	// decision to the new generation executing (-1 while in progress).
	Duration int64 `json:"duration"`
}

// VertexDetails is one vertex of JobDetails. Tasks counts subtasks by
// execution state.
type VertexDetails struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	MaxParallelism int            `json:"maxParallelism"`
	Parallelism    int            `json:"parallelism"`
	Status         string         `json:"status"`
	StartTime      int64          `json:"start-time"`
	EndTime        int64          `json:"end-time"`
	Duration       int64          `json:"duration"`
	Tasks          map[string]int `json:"tasks"`
	Metrics        IOMetrics      `json:"metrics"`
}

// IOMetrics is Flink's IOMetricsInfo.
type IOMetrics struct {
	ReadBytes            int64 `json:"read-bytes"`
	ReadBytesComplete    bool  `json:"read-bytes-complete"`
	WriteBytes           int64 `json:"write-bytes"`
	WriteBytesComplete   bool  `json:"write-bytes-complete"`
	ReadRecords          int64 `json:"read-records"`
	ReadRecordsComplete  bool  `json:"read-records-complete"`
	WriteRecords         int64 `json:"write-records"`
	WriteRecordsComplete bool  `json:"write-records-complete"`
}

// CheckpointingStatistics is Flink's CheckpointingStatistics (GET
// /jobs/:jobid/checkpoints).
type CheckpointingStatistics struct {
	Counts  CheckpointCounts       `json:"counts"`
	Summary CheckpointSummary      `json:"summary"`
	Latest  LatestCheckpoints      `json:"latest"`
	History []CheckpointStatistics `json:"history"`
}

// CheckpointCounts is Flink's CheckpointingStatistics.Counts.
type CheckpointCounts struct {
	Restored   int `json:"restored"`
	Total      int `json:"total"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
	Failed     int `json:"failed"`
}

// CheckpointSummary is Flink's CheckpointingStatistics.Summary: the
// distribution of each measure over the completed checkpoints that are
// still in the history.
type CheckpointSummary struct {
	CheckpointedSize  StatsSummary `json:"checkpointed_size"`
	StateSize         StatsSummary `json:"state_size"`
	EndToEndDuration  StatsSummary `json:"end_to_end_duration"`
	AlignmentBuffered StatsSummary `json:"alignment_buffered"`
	ProcessedData     StatsSummary `json:"processed_data"`
	PersistedData     StatsSummary `json:"persisted_data"`
}

// StatsSummary is Flink's StatsSummaryDto.
type StatsSummary struct {
	Min  int64   `json:"min"`
	Max  int64   `json:"max"`
	Avg  int64   `json:"avg"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

// LatestCheckpoints is Flink's LatestCheckpoints; what is unknown is null.
type LatestCheckpoints struct {
	Completed *CheckpointStatistics         `json:"completed"`
	Savepoint *CheckpointStatistics         `json:"savepoint"`
	Failed    *CheckpointStatistics         `json:"failed"`
	Restored  *RestoredCheckpointStatistics `json:"restored"`
}

// RestoredCheckpointStatistics is Flink's RestoredCheckpointStatistics.
type RestoredCheckpointStatistics struct {
	ID               int64  `json:"id"`
	RestoreTimestamp int64  `json:"restore_timestamp"`
	IsSavepoint      bool   `json:"is_savepoint"`
	ExternalPath     string `json:"external_path"`
}

// CheckpointStatistics is Flink's CheckpointStatistics with its type
// discriminator "@class" (completed, failed, in_progress): an entry of
// the history, a latest one, and GET
// /jobs/:jobid/checkpoints/details/:checkpointid. Sizes are in bytes,
// times in milliseconds since the epoch, durations in milliseconds.
type CheckpointStatistics struct {
	Class                   string  `json:"@class"`
	ID                      int64   `json:"id"`
	Status                  string  `json:"status"`
	IsSavepoint             bool    `json:"is_savepoint"`
	SavepointFormat         *string `json:"savepointFormat"`
	TriggerTimestamp        int64   `json:"trigger_timestamp"`
	LatestAckTimestamp      int64   `json:"latest_ack_timestamp"`
	CheckpointedSize        int64   `json:"checkpointed_size"`
	StateSize               int64   `json:"state_size"`
	EndToEndDuration        int64   `json:"end_to_end_duration"`
	AlignmentBuffered       int64   `json:"alignment_buffered"`
	ProcessedData           int64   `json:"processed_data"`
	PersistedData           int64   `json:"persisted_data"`
	NumSubtasks             int     `json:"num_subtasks"`
	NumAcknowledgedSubtasks int     `json:"num_acknowledged_subtasks"`
	CheckpointType          string  `json:"checkpoint_type"`
	// Tasks holds per-vertex statistics by vertex id; Weir does not keep
	// them per vertex, so it is empty.
	Tasks map[string]struct{} `json:"tasks"`
	// ExternalPath and Discarded are those of a completed one.
	ExternalPath string `json:"external_path,omitempty"`
	Discarded    bool   `json:"discarded"`
	// FailureTimestamp and FailureMessage are those of a failed one.
	FailureTimestamp int64  `json:"failure_timestamp,omitempty"`
	FailureMessage   string `json:"failure_message,omitempty"`
}

// CheckpointConfig is Flink's CheckpointConfigInfo (GET
// /jobs/:jobid/checkpoints/config).
type CheckpointConfig struct {
	Mode                        string                    `json:"mode"`
	Interval                    int64                     `json:"interval"`
	Timeout                     int64                     `json:"timeout"`
	MinPause                    int64                     `json:"min_pause"`
	MaxConcurrent               int                       `json:"max_concurrent"`
	Externalization             CheckpointExternalization `json:"externalization"`
	StateBackend                string                    `json:"state_backend"`
	CheckpointStorage           string                    `json:"checkpoint_storage"`
	UnalignedCheckpoints        bool                      `json:"unaligned_checkpoints"`
	TolerableFailedCheckpoints  int                       `json:"tolerable_failed_checkpoints"`
	AlignedCheckpointTimeout    int64                     `json:"aligned_checkpoint_timeout"`
	CheckpointsAfterTasksFinish bool                      `json:"checkpoints_after_tasks_finish"`
}

// CheckpointExternalization is Flink's ExternalizedCheckpointInfo.
type CheckpointExternalization struct {
	Enabled              bool `json:"enabled"`
	DeleteOnCancellation bool `json:"delete_on_cancellation"`
}

// JobExceptions is Flink's JobExceptionsInfoWithHistory (GET
// /jobs/:jobid/exceptions); root-exception and timestamp are null for a
// job that did not fail.
type JobExceptions struct {
	RootException    *string          `json:"root-exception"`
	Timestamp        *int64           `json:"timestamp"`
	AllExceptions    []struct{}       `json:"all-exceptions"`
	Truncated        bool             `json:"truncated"`
	ExceptionHistory ExceptionHistory `json:"exceptionHistory"`
}

// ExceptionHistory is Flink's JobExceptionHistory: the failures of the
// job, latest first.
type ExceptionHistory struct {
	Entries   []RootException `json:"entries"`
	Truncated bool            `json:"truncated"`
}

// RootException is Flink's RootExceptionInfo.
type RootException struct {
	ExceptionName        string            `json:"exceptionName"`
	Stacktrace           string            `json:"stacktrace"`
	Timestamp            int64             `json:"timestamp"`
	TaskName             *string           `json:"taskName"`
	Endpoint             *string           `json:"endpoint"`
	TaskManagerID        *string           `json:"taskManagerId"`
	FailureLabels        map[string]string `json:"failureLabels"`
	ConcurrentExceptions []struct{}        `json:"concurrentExceptions"`
}

// SavepointRequest is Flink's SavepointTriggerRequestBody.
type SavepointRequest struct {
	TargetDirectory string `json:"target-directory,omitempty"`
	CancelJob       bool   `json:"cancel-job"`
	TriggerID       string `json:"triggerId,omitempty"`
	FormatType      string `json:"formatType,omitempty"`
}

// StopRequest is Flink's StopWithSavepointRequestBody.
type StopRequest struct {
	TargetDirectory string `json:"targetDirectory,omitempty"`
	Drain           bool   `json:"drain"`
	TriggerID       string `json:"triggerId,omitempty"`
	FormatType      string `json:"formatType,omitempty"`
}

// TriggerResponse is Flink's TriggerResponse.
type TriggerResponse struct {
	RequestID string `json:"request-id"`
}

// OperationResult is Flink's AsynchronousOperationResult of a savepoint:
// operation is null while the status is IN_PROGRESS.
type OperationResult struct {
	Status    QueueStatus    `json:"status"`
	Operation *SavepointInfo `json:"operation"`
}

// QueueStatus is Flink's QueueStatus: IN_PROGRESS or COMPLETED.
type QueueStatus struct {
	ID string `json:"id"`
}

// SavepointInfo is Flink's SavepointInfo: the location, or the cause of
// the failure.
type SavepointInfo struct {
	Location     string        `json:"location,omitempty"`
	FailureCause *FailureCause `json:"failure-cause,omitempty"`
}

// FailureCause is Flink's SerializedThrowable as JSON, without the Java
// serialized form.
type FailureCause struct {
	Class      string `json:"class"`
	Message    string `json:"message"`
	StackTrace string `json:"stack-trace"`
}

// ErrorResponse is Flink's ErrorResponseBody, the body of every answer
// with an error status.
type ErrorResponse struct {
	Errors []string `json:"errors"`
}

// JobSubmission is the body of POST /jobs: run the job registered under
// Job in the JobManager's binary (which every TaskManager's binary also
// has), built with Args, with the engine options of `weir run`. Flink
// submits a jar (POST /jars/:jarid/run); a Weir cluster's binary has its
// jobs already, so the submission names one.
type JobSubmission struct {
	Job     string        `json:"job"`
	Args    []string      `json:"args,omitempty"`
	Options EngineOptions `json:"options"`
}

// EngineOptions are the engine flags of `weir run` that a submission
// carries (each empty or zero takes the JobManager's default).
type EngineOptions struct {
	Parallelism int    `json:"parallelism,omitempty"`
	Mode        string `json:"mode,omitempty"`
	// CheckpointInterval is a Go duration ("2s"); empty: no checkpoints.
	CheckpointInterval string `json:"checkpointInterval,omitempty"`
	// CheckpointDir and SavepointDir default to the JobManager's
	// state.checkpoints.dir and state.savepoints.dir.
	CheckpointDir    string `json:"checkpointDir,omitempty"`
	SavepointDir     string `json:"savepointDir,omitempty"`
	FromSavepoint    string `json:"fromSavepoint,omitempty"`
	AllowNonRestored bool   `json:"allowNonRestoredState,omitempty"`
	StateBackend     string `json:"stateBackend,omitempty"`
	Incremental      bool   `json:"incremental,omitempty"`
	// StateDir is refused by a cluster's JobManager: its TaskManagers
	// keep Pebble's working directories under their own --data-dir.
	StateDir string `json:"stateDir,omitempty"`
}

// SubmitResponse answers POST /jobs with the new job's id, as Flink's
// JarRunResponseBody does.
type SubmitResponse struct {
	JobID string `json:"jobid"`
}

// ClusterDataSetList is Flink's ClusterDataSetListResponseBody: the cached
// intermediate results (FLIP-205's cluster partitions) the server knows.
type ClusterDataSetList struct {
	DataSets []ClusterDataSetEntry `json:"dataSets"`
}

// ClusterDataSetEntry is Flink's ClusterDataSetEntry.
type ClusterDataSetEntry struct {
	ID         string `json:"id"`
	IsComplete bool   `json:"isComplete"`
}
