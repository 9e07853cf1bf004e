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
}
