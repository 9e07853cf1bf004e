package rest

// The JSON bodies of the API, with Flink's field names (see Flink's
// rest_v1_dispatcher.yml and the serializers of its REST messages). They
// are unexported: a client decodes what it needs into its own types, as
// clients of Flink do.

// clusterOverview is Flink's ClusterOverviewWithVersion (GET /overview).
type clusterOverview struct {
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

// jobIDsWithStatus is Flink's JobIdsWithStatusOverview (GET /jobs).
type jobIDsWithStatus struct {
	Jobs []jobIDWithStatus `json:"jobs"`
}

type jobIDWithStatus struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// multipleJobsDetails is Flink's MultipleJobsDetails (GET /jobs/overview).
type multipleJobsDetails struct {
	Jobs []jobOverview `json:"jobs"`
}

// jobOverview is Flink's JobDetails: one job of /jobs/overview. Tasks
// counts subtasks by lower-case execution state, and "total".
type jobOverview struct {
	JID              string         `json:"jid"`
	Name             string         `json:"name"`
	State            string         `json:"state"`
	StartTime        int64          `json:"start-time"`
	EndTime          int64          `json:"end-time"`
	Duration         int64          `json:"duration"`
	LastModification int64          `json:"last-modification"`
	Tasks            map[string]int `json:"tasks"`
}

// jobDetails is Flink's JobDetailsInfo (GET /jobs/:jobid).
type jobDetails struct {
	JID            string           `json:"jid"`
	Name           string           `json:"name"`
	IsStoppable    bool             `json:"isStoppable"`
	State          string           `json:"state"`
	StartTime      int64            `json:"start-time"`
	EndTime        int64            `json:"end-time"`
	Duration       int64            `json:"duration"`
	MaxParallelism int              `json:"maxParallelism"`
	Now            int64            `json:"now"`
	Timestamps     map[string]int64 `json:"timestamps"`
	Vertices       []vertexDetails  `json:"vertices"`
	StatusCounts   map[string]int   `json:"status-counts"`
}

// vertexDetails is one vertex of jobDetails. Tasks counts subtasks by
// execution state.
type vertexDetails struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	MaxParallelism int            `json:"maxParallelism"`
	Parallelism    int            `json:"parallelism"`
	Status         string         `json:"status"`
	StartTime      int64          `json:"start-time"`
	EndTime        int64          `json:"end-time"`
	Duration       int64          `json:"duration"`
	Tasks          map[string]int `json:"tasks"`
	Metrics        ioMetrics      `json:"metrics"`
}

// ioMetrics is Flink's IOMetricsInfo.
type ioMetrics struct {
	ReadBytes            int64 `json:"read-bytes"`
	ReadBytesComplete    bool  `json:"read-bytes-complete"`
	WriteBytes           int64 `json:"write-bytes"`
	WriteBytesComplete   bool  `json:"write-bytes-complete"`
	ReadRecords          int64 `json:"read-records"`
	ReadRecordsComplete  bool  `json:"read-records-complete"`
	WriteRecords         int64 `json:"write-records"`
	WriteRecordsComplete bool  `json:"write-records-complete"`
}

// checkpointingStatistics is Flink's CheckpointingStatistics (GET
// /jobs/:jobid/checkpoints), without the summary Weir does not measure.
type checkpointingStatistics struct {
	Counts  checkpointCounts      `json:"counts"`
	Latest  latestCheckpoints     `json:"latest"`
	History []completedCheckpoint `json:"history"`
}

type checkpointCounts struct {
	Restored   int `json:"restored"`
	Total      int `json:"total"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
	Failed     int `json:"failed"`
}

// latestCheckpoints is Flink's LatestCheckpoints; what is unknown is null.
type latestCheckpoints struct {
	Completed *completedCheckpoint `json:"completed"`
	Savepoint *completedCheckpoint `json:"savepoint"`
	Failed    *struct{}            `json:"failed"`
	Restored  *struct{}            `json:"restored"`
}

// completedCheckpoint is Flink's CompletedCheckpointStatistics, with its
// type discriminator "@class".
type completedCheckpoint struct {
	Class          string `json:"@class"`
	ID             int64  `json:"id"`
	Status         string `json:"status"`
	IsSavepoint    bool   `json:"is_savepoint"`
	CheckpointType string `json:"checkpoint_type"`
	ExternalPath   string `json:"external_path"`
	Discarded      bool   `json:"discarded"`
	// EndToEndDuration is in milliseconds; StateSize and CheckpointedSize
	// in bytes (the full state, and what this checkpoint wrote).
	EndToEndDuration int64 `json:"end_to_end_duration"`
	StateSize        int64 `json:"state_size"`
	CheckpointedSize int64 `json:"checkpointed_size"`
}

// jobExceptions is Flink's JobExceptionsInfoWithHistory (GET
// /jobs/:jobid/exceptions); root-exception and timestamp are null for a
// job that did not fail.
type jobExceptions struct {
	RootException    *string          `json:"root-exception"`
	Timestamp        *int64           `json:"timestamp"`
	AllExceptions    []struct{}       `json:"all-exceptions"`
	Truncated        bool             `json:"truncated"`
	ExceptionHistory exceptionHistory `json:"exceptionHistory"`
}

type exceptionHistory struct {
	Entries   []rootException `json:"entries"`
	Truncated bool            `json:"truncated"`
}

// rootException is Flink's RootExceptionInfo.
type rootException struct {
	ExceptionName        string            `json:"exceptionName"`
	Stacktrace           string            `json:"stacktrace"`
	Timestamp            int64             `json:"timestamp"`
	TaskName             *string           `json:"taskName"`
	FailureLabels        map[string]string `json:"failureLabels"`
	ConcurrentExceptions []struct{}        `json:"concurrentExceptions"`
}

// savepointRequest is Flink's SavepointTriggerRequestBody.
type savepointRequest struct {
	TargetDirectory string `json:"target-directory"`
	CancelJob       bool   `json:"cancel-job"`
	TriggerID       string `json:"triggerId"`
	FormatType      string `json:"formatType"`
}

// stopRequest is Flink's StopWithSavepointRequestBody.
type stopRequest struct {
	TargetDirectory string `json:"targetDirectory"`
	Drain           bool   `json:"drain"`
	TriggerID       string `json:"triggerId"`
	FormatType      string `json:"formatType"`
}

// triggerResponse is Flink's TriggerResponse.
type triggerResponse struct {
	RequestID string `json:"request-id"`
}

// operationResult is Flink's AsynchronousOperationResult of a savepoint:
// operation is null while the status is IN_PROGRESS.
type operationResult struct {
	Status    queueStatus    `json:"status"`
	Operation *savepointInfo `json:"operation"`
}

type queueStatus struct {
	ID string `json:"id"`
}

// savepointInfo is Flink's SavepointInfo: the location, or the cause of
// the failure.
type savepointInfo struct {
	Location     string        `json:"location,omitempty"`
	FailureCause *failureCause `json:"failure-cause,omitempty"`
}

// failureCause is Flink's SerializedThrowable as JSON, without the Java
// serialized form.
type failureCause struct {
	Class      string `json:"class"`
	Message    string `json:"message"`
	StackTrace string `json:"stack-trace"`
}
