package weir

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/runner"
)

// CheckpointConfig turns on checkpoints: consistent snapshots of all
// operator state, taken with barriers that flow with the data, from which
// a failed job restarts with exactly-once state, and at which
// two-phase-commit sinks commit. The zero values of the fields take
// Flink's defaults.
type CheckpointConfig struct {
	// Interval between periodic checkpoints (required, > 0).
	Interval time.Duration
	// Dir is where checkpoints are stored: a path, file://, or a
	// gocloud.dev/blob URL (s3://, gs://, mem://). Empty means a temporary
	// directory removed when the job ends.
	Dir string
	// SavepointDir is where savepoints go that are taken without a
	// target directory, as Flink's state.savepoints.dir (default:
	// "savepoints" under Dir). When Dir is empty too, such savepoints are
	// refused: the temporary directory would take them along when the job
	// ends.
	SavepointDir string
	// Timeout aborts a checkpoint that takes longer (default 10m).
	Timeout time.Duration
	// MinPause is the least time between the end of one checkpoint and
	// the start of the next.
	MinPause time.Duration
	// MaxConcurrent checkpoints in flight (default 1).
	MaxConcurrent int
	// TolerableFailures is how many consecutive checkpoint failures the job
	// survives (default 0: the first failure fails the job).
	TolerableFailures int
	// Retained is how many completed checkpoints are kept (default 1).
	Retained int
	// Unaligned lets barriers overtake data: in-flight data becomes part of
	// the checkpoint, so back-pressure does not delay it.
	Unaligned bool
	// AlignedTimeout switches an aligned checkpoint to unaligned when the
	// alignment takes longer (0: never).
	AlignedTimeout time.Duration
	// DisableFinalCheckpoint turns off FLIP-147's behaviour of triggering a
	// checkpoint at once when all tasks reached the end of their input.
	// Two-phase-commit sinks then wait for the next periodic checkpoint to
	// commit their last data.
	DisableFinalCheckpoint bool
	// DisableCheckpointsAfterTasksFinish turns FLIP-147 off entirely, as
	// Flink's checkpoints-after-tasks-finish switch does: once any task
	// finished no checkpoint is taken, and tasks do not wait for a final
	// checkpoint, so two-phase-commit sinks do not commit the data after
	// the last checkpoint of a bounded job.
	DisableCheckpointsAfterTasksFinish bool
}

// WithCheckpointing enables checkpoints. Unless a restart strategy is set,
// a job with checkpoints restarts from the latest one after a failure, as
// Flink's default does: fixed delay, 1s, practically without limit.
func WithCheckpointing(c CheckpointConfig) Option { return func(o *Options) { o.Checkpoints = &c } }

// WithRestoreFrom starts the job from a savepoint or retained checkpoint
// (the location printed when it was taken). allowNonRestored drops state
// that no operator of the job claims instead of failing.
func WithRestoreFrom(location string, allowNonRestored bool) Option {
	return func(o *Options) { o.RestoreFrom, o.AllowNonRestored = location, allowNonRestored }
}

// CheckpointStats counts a job's checkpoints and describes the latest.
type CheckpointStats struct {
	Completed, Failed int
	// Latest is the location of the latest completed checkpoint.
	Latest string
	// LatestDuration is how long the latest completed checkpoint took,
	// from its trigger to its completion.
	LatestDuration time.Duration
	// LatestSize is the bytes of state the latest completed checkpoint
	// references; LatestUploaded the bytes written for it, less than
	// LatestSize when incremental checkpoints reused files of earlier ones.
	LatestSize, LatestUploaded int64
	// UploadedTotal is the bytes written for all completed checkpoints of
	// the job: with incremental checkpoints, about the state once plus what
	// changed.
	UploadedTotal int64
}

func checkpointStats(s runner.CheckpointStats) CheckpointStats {
	return CheckpointStats{Completed: s.Completed, Failed: s.Failed, Latest: s.Latest,
		LatestDuration: s.LatestDuration, LatestSize: s.LatestSize, LatestUploaded: s.LatestUploaded,
		UploadedTotal: s.UploadedTotal}
}

// ErrNoSavepointDir refuses a savepoint without a target directory when no
// default one is configured (CheckpointConfig.SavepointDir) and checkpoints
// go to a temporary directory, which the savepoint would not outlive.
var ErrNoSavepointDir = errors.New("weir: no savepoint directory: give a target directory, or configure a default one (--savepoint-dir, CheckpointConfig.SavepointDir)")

// hasDefaultSavepointDir reports whether a savepoint without a target
// directory has a durable place to go.
func (c *CheckpointConfig) hasDefaultSavepointDir() bool {
	return c != nil && (c.SavepointDir != "" || c.Dir != "")
}

func (c *CheckpointConfig) validate() error {
	if c.Interval <= 0 {
		return fmt.Errorf("weir: checkpoint interval %v must be positive", c.Interval)
	}
	if c.Timeout < 0 || c.MinPause < 0 || c.AlignedTimeout < 0 || c.MaxConcurrent < 0 || c.Retained < 0 {
		return fmt.Errorf("weir: negative value in checkpoint configuration %+v", *c)
	}
	return nil
}

// runnerConfig returns the configuration the runner takes, or nil when
// checkpoints are off.
func (c *CheckpointConfig) runnerConfig() (*runner.Checkpoints, error) {
	if c == nil {
		return nil, nil
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	rc := runner.Checkpoints(*c)
	return &rc, nil
}
