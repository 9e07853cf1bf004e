package runner

import (
	"context"
	"log/slog"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// Runner starts jobs.
type Runner interface {
	// Submit starts the job jg and returns at once. Cancelling ctx cancels
	// the job. An error means nothing was started (the checkpoint storage
	// could not be opened, say); a job that fails to start comes back as a
	// Job that already failed.
	Submit(ctx context.Context, jg *graph.JobGraph, cfg Config) (Job, error)
}

// Job is a job a Runner started.
type Job interface {
	// Done is closed when the job ended.
	Done() <-chan struct{}
	// Status is the job's state as of now.
	Status() Status
	// EndTime is when the job ended; zero while it runs.
	EndTime() time.Time
	// TriggerSavepoint asks for a savepoint of kind into dir (empty: the
	// configured default); the returned channel receives the outcome once.
	TriggerSavepoint(kind SavepointKind, dir string) <-chan SavepointReply
	// Wait waits for the job to end, releases what Submit acquired, and
	// returns how the job ended.
	Wait() Result
}

// The job's status, result and savepoint types are the JobMaster's: a
// remote runner fills them from the cluster's answers.
type (
	// Status is a running job's state.
	Status = jobmaster.Status
	// Result is how a job ended.
	Result = jobmaster.Result
	// CheckpointStats counts a job's checkpoints.
	CheckpointStats = checkpoint.Stats
	// SavepointKind is what a savepoint is for: one that lets the job go
	// on, or one that stops it (draining it first or not).
	SavepointKind = checkpoint.Kind
	// SavepointReply is the outcome of a savepoint.
	SavepointReply = jobmaster.SavepointReply
)

// The savepoint kinds.
const (
	Savepoint          = checkpoint.Savepoint
	SavepointTerminate = checkpoint.SavepointTerminate
	SavepointDrain     = checkpoint.SavepointDrain
)

// Config is how to run one job: the public Options, resolved.
type Config struct {
	// JobID is the job's id (32 lower-case hex characters).
	JobID string
	// JobName is the job's name, which its deployments carry for the
	// labels of the TaskManagers' metrics.
	JobName string
	// TaskManagers and Slots size the cluster (0: defaults).
	TaskManagers, Slots int
	// NetworkMemory is the bytes of network buffers per TaskManager (0:
	// the default).
	NetworkMemory int64
	// BufferTimeout bounds how long a record waits in a partly filled
	// network buffer (0: the default; negative: a buffer is sent after
	// every record).
	BufferTimeout time.Duration
	// StateBackend says where keyed state lives.
	StateBackend op.StateBackend
	// Restart is the restart strategy; its zero value is NoRestart, or
	// the checkpointed default when Checkpoints is set (see Restart).
	Restart Restart
	// Checkpoints turns checkpoints on (nil: off).
	Checkpoints *Checkpoints
	// RestoreFrom is a savepoint or checkpoint to start from;
	// AllowNonRestored drops state that no operator claims.
	RestoreFrom      string
	AllowNonRestored bool
	// Logger receives the engine's logs.
	Logger *slog.Logger
	// Registered names the registered job builder, arguments and options
	// the graph was built with (nil: a program that built its graph
	// itself). Its tasks are then deployed by reference: the TaskManagers
	// build the graph again with Builder (required with Registered) and
	// run the operators of their own graph, as processes of a cluster
	// must. Without it the graph is embedded in the process.
	Registered *rpcpb.RegisteredJob
	Builder    funcspec.Builder
	// Clock is the tasks' processing-time clock (nil: the wall clock).
	Clock clock.Clock
	// Scheduler is jobmanager.scheduler: "adaptive" or "default" ("":
	// adaptive for a streaming job, default for a batch one);
	// SchedulerMode "reactive" runs the adaptive scheduler in reactive
	// mode ("": its default mode).
	Scheduler, SchedulerMode string
}

// scheduler is the scheduler jg runs on: Scheduler, or when it is unset
// the adaptive one for a streaming job and the default one for a batch
// job (jobmaster.SchedulerFor).
func (c Config) scheduler(jg *graph.JobGraph) string {
	if c.Scheduler != "" {
		return c.Scheduler
	}
	return jobmaster.SchedulerFor(jg)
}

// Checkpoints configures checkpointing. It has the fields of
// weir.CheckpointConfig, which documents them, so that the public type
// converts to it.
type Checkpoints struct {
	Interval                           time.Duration
	Dir                                string
	SavepointDir                       string
	Timeout                            time.Duration
	MinPause                           time.Duration
	MaxConcurrent                      int
	TolerableFailures                  int
	Retained                           int
	Unaligned                          bool
	AlignedTimeout                     time.Duration
	DisableFinalCheckpoint             bool
	DisableCheckpointsAfterTasksFinish bool
}
