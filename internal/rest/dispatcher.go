package rest

import (
	"context"
	"errors"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/rest/api"
)

// Dispatcher is what the REST server needs of the JobManager: the jobs it
// runs and the actions on them. The embedded mini-cluster of `weir run`
// implements it in the root package; a distributed JobManager will too.
type Dispatcher interface {
	// Jobs lists the jobs, running and ended.
	Jobs() []JobInfo
	// Job returns one job, or ErrNotFound.
	Job(id string) (JobInfo, error)
	// Cancel cancels a job (ErrNotFound, or an error when it ended; an
	// error that wraps ErrJobEnded is answered 409 Conflict, any other one
	// 500).
	Cancel(id string) error
	// Savepoint takes a savepoint of a job into a new directory under dir
	// ("" for the job's default) and returns its location; with stop the
	// job then ends (drain: after ending its input). It blocks until the
	// savepoint completed or failed; the server runs it asynchronously
	// under a trigger id.
	Savepoint(ctx context.Context, id, dir string, stop, drain bool) (string, error)
}

// ErrNotFound is returned for an unknown job id.
var ErrNotFound = errors.New("rest: no such job")

// ErrJobEnded may be wrapped by Cancel's error for a job that has already
// ended: the server then answers 409 Conflict, as Flink does.
var ErrJobEnded = errors.New("rest: job has ended")

// ClusterReporter is implemented by a Dispatcher that knows its
// TaskManagers and slots; GET /overview reports them. Without it the
// server assumes the embedded mini-cluster: one TaskManager with as many
// slots as the running jobs occupy.
type ClusterReporter interface {
	// Cluster returns the cluster's current size.
	Cluster() ClusterInfo
}

// ClusterInfo sizes the cluster for GET /overview.
type ClusterInfo struct {
	TaskManagers   int
	SlotsTotal     int
	SlotsAvailable int
}

// JobInfo describes a job with Flink's vocabulary.
type JobInfo struct {
	ID   string
	Name string
	// State is one of Flink's job states: CREATED, RUNNING, FAILING,
	// FAILED, CANCELLING, CANCELED, FINISHED, RESTARTING.
	State    string
	Start    time.Time
	End      time.Time // zero while running
	Vertices []VertexInfo
	// Checkpoints counts completed and failed checkpoints; Latest is the
	// location of the latest completed one ("" if none). LatestSize and
	// LatestUploaded are Flink's state_size and checkpointed_size.
	Checkpoints checkpoint.Stats
	// Failure is the root cause of a failed job.
	Failure string
	// Timestamps say when the job first entered each of Flink's job
	// states (by name); Restarts counts its restarts; MaxParallelism is
	// the largest of its vertices' (0: unknown).
	Timestamps     map[string]time.Time
	Restarts       int
	MaxParallelism int
	// Exceptions are the latest failures of its subtasks, newest first.
	Exceptions []ExceptionInfo
	// CheckpointConfig is how the job checkpoints (nil: it does not).
	CheckpointConfig *CheckpointConfig
	// Mode is STREAMING or BATCH ("": STREAMING); Parallelism is the
	// job's default parallelism; RestartStrategy describes its restart
	// strategy.
	Mode            string
	Parallelism     int
	RestartStrategy string
	// Accumulators are the user's counters, summed over the subtasks.
	Accumulators map[string]int64
	// SchedulerState is the adaptive scheduler's state ("" for the
	// default scheduler) and Rescales its rescales, oldest first.
	SchedulerState string
	Rescales       []RescaleInfo
	// Requirements are the adaptive scheduler's parallelism bounds by
	// vertex id (FLIP-291; nil on the default scheduler).
	Requirements map[int]Bounds
}

// TaskManagerLister is implemented by a Dispatcher that knows its
// TaskManagers; GET /taskmanagers lists them (none without it).
type TaskManagerLister interface {
	// TaskManagers lists the TaskManagers, by id.
	TaskManagers() []TaskManagerInfo
}

// TaskManagerInfo is a TaskManager.
type TaskManagerInfo struct {
	ID          string
	Slots, Free int
	// NetworkMemory is the bytes of its network buffers.
	NetworkMemory int64
	// Jobs are the ids of the jobs with subtasks there, one per slot
	// they occupy.
	Jobs []string
}

// ExceptionInfo is a subtask's failure.
type ExceptionInfo struct {
	Message string
	At      time.Time
	// Task names the subtask as Flink does: "name (i/n)".
	Task string
}

// CheckpointConfig is a job's checkpoint configuration.
type CheckpointConfig struct {
	Interval, Timeout, MinPause time.Duration
	MaxConcurrent               int
	TolerableFailures           int
	Unaligned                   bool
	// AfterTasksFinish: checkpoints go on after some tasks finished
	// (FLIP-147).
	AfterTasksFinish bool
	// StateBackend and Storage name the state backend and the checkpoint
	// storage's location.
	StateBackend, Storage string
}

// RescaleInfo is one rescale: each vertex's parallelism before and after
// (by vertex id), why, and when.
type RescaleInfo struct {
	From, To map[int]int
	Reason   string
	Time     time.Time
	// Duration is how long it took, from the decision to the new
	// generation executing (-1 while in progress).
	Duration time.Duration
}

// VertexInfo is one job vertex.
type VertexInfo struct {
	ID          int
	Name        string
	Parallelism int
	RecordsIn   int64
	RecordsOut  int64
	// Status is the vertex's execution state in Flink's words (CREATED,
	// SCHEDULED, DEPLOYING, INITIALIZING, RUNNING, FINISHED, CANCELING,
	// CANCELED, FAILED); "" derives it from the job's state.
	Status string
	// MaxParallelism is its number of key groups (0: unknown).
	MaxParallelism int
	// Subtasks are its subtasks' counters, when known.
	Subtasks []SubtaskInfo
	// Inputs are its input edges; Operators the names of its chained
	// operators, head first.
	Inputs    []InputInfo
	Operators []string
}

// InputInfo is an input edge of a vertex.
type InputInfo struct {
	// Source is the producing vertex's id; ShipStrategy how records are
	// distributed, in Flink's words (FORWARD, HASH, REBALANCE, RESCALE,
	// BROADCAST, GLOBAL).
	Source       int
	ShipStrategy string
}

// SubtaskInfo is one subtask of a vertex.
type SubtaskInfo struct {
	Index int
	// Status is its execution state; Since when it entered it;
	// TaskManager where it runs.
	Status                string
	Since                 time.Time
	TaskManager           string
	RecordsIn, RecordsOut int64
	// RecordsInPerSecond and RecordsOutPerSecond are its recent rates.
	RecordsInPerSecond, RecordsOutPerSecond float64
	// BusyTimeMsPerSecond, IdleTimeMsPerSecond and
	// BackPressuredTimeMsPerSecond are its recent load, as Flink's gauges
	// of these names (they add up to 1000 while it runs).
	BusyTimeMsPerSecond, IdleTimeMsPerSecond, BackPressuredTimeMsPerSecond float64
	// InputWatermark is the combined watermark of its inputs
	// (math.MinInt64 before any, and for a source).
	InputWatermark int64
}

// Submitter is implemented by a Dispatcher that accepts jobs: a JobManager
// process. POST /jobs calls it; without it the path answers 405.
type Submitter interface {
	// Submit starts the job and returns its id. An error that wraps
	// ErrBadSubmission (an unknown job, arguments its builder refused,
	// bad options) is answered 400, any other one 500.
	Submit(ctx context.Context, s api.JobSubmission) (string, error)
}

// ErrBadSubmission marks a submission that cannot run as given.
var ErrBadSubmission = errors.New("rest: bad submission")

// BadSubmission marks err as the submission's fault: the error matches
// ErrBadSubmission and keeps err's message.
func BadSubmission(err error) error { return &badSubmission{err} }

type badSubmission struct{ err error }

func (e *badSubmission) Error() string   { return e.err.Error() }
func (e *badSubmission) Unwrap() []error { return []error{ErrBadSubmission, e.err} }
