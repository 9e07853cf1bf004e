package checkpoint

import "time"

// Stats count a job's checkpoints and describe the latest completed one:
// what the JobMaster publishes in its status and the REST API serves.
type Stats struct {
	Completed, Failed int
	// Latest is the location of the latest completed checkpoint, LatestID
	// its id.
	Latest   string
	LatestID int64
	// LatestDuration is how long the latest completed checkpoint took from
	// its trigger to its completion; LatestSize is the bytes of state it
	// references, LatestUploaded the bytes its tasks wrote for it (less
	// than LatestSize when an incremental backend reused files).
	LatestDuration time.Duration
	LatestSize     int64
	LatestUploaded int64
	// UploadedTotal is the bytes written for all completed checkpoints.
	UploadedTotal int64
	// History holds the latest checkpoints and savepoints, newest first
	// (at most HistorySize of them); InProgress counts the pending ones.
	History    []Record
	InProgress int
	// LatestSavepoint and LatestFailed are the latest completed savepoint
	// and the latest failed checkpoint or savepoint (nil: none).
	LatestSavepoint, LatestFailed *Record
	// Restored is the latest snapshot the job restored from (nil: none);
	// Restores counts the restores.
	Restored *Restore
	Restores int
}

// HistorySize is how many checkpoints Stats.History keeps, as Flink's
// web.checkpoints.history default.
const HistorySize = 10

// The history of a job's checkpoints, for the REST API: Stats carries it.

// Record is one checkpoint or savepoint in a job's history.
type Record struct {
	ID   int64
	Kind Kind
	// Status is Flink's: IN_PROGRESS, COMPLETED or FAILED.
	Status string
	// Triggered is when it started, LatestAck when the latest subtask
	// acknowledged it (zero before any), Ended when it completed or
	// failed (zero while in progress).
	Triggered, LatestAck, Ended time.Time
	// Subtasks is the number of subtasks of the job, Acknowledged how
	// many acknowledged it.
	Subtasks, Acknowledged int
	// Size is the bytes of state it references, Uploaded the bytes its
	// subtasks wrote for it (known once completed).
	Size, Uploaded int64
	// Location is where a completed one is; Failure why a failed one
	// failed.
	Location string
	Failure  string
}

// Restore describes the snapshot a job restored from, latest first.
type Restore struct {
	ID        int64
	Savepoint bool
	Location  string
	At        time.Time
}

// Statuses of a Record.
const (
	StatusInProgress = "IN_PROGRESS"
	StatusCompleted  = "COMPLETED"
	StatusFailed     = "FAILED"
)
