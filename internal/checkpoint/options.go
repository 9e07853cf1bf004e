package checkpoint

import (
	"fmt"
	"time"
)

// UnlimitedFailures as Options.TolerableFailures never fails the job for
// failed checkpoints.
const UnlimitedFailures = -1

// Options configure a Coordinator, with the meaning of Flink's
// execution.checkpointing.* settings. Start from [DefaultOptions]; the zero
// value is completed by [Options.EnsureDefaults] except for
// FinalCheckpointOnEndOfData, whose default (true) a zero bool cannot tell
// from an explicit false.
type Options struct {
	// Enabled turns on periodic checkpoints and the end-of-data
	// checkpoints. Savepoints can be requested either way, as in Flink.
	// Default false.
	Enabled bool
	// Interval is the time between two periodic checkpoint triggers. It has
	// no default: Enabled requires it to be positive.
	Interval time.Duration
	// Timeout aborts a checkpoint that has not been acknowledged by all its
	// tasks this long after its trigger. Default 10 minutes.
	Timeout time.Duration
	// MinPauseBetween is the least time from the completion of one
	// checkpoint to the trigger of the next periodic (or region
	// end-of-data) checkpoint. Default 0.
	MinPauseBetween time.Duration
	// MaxConcurrent is how many checkpoints may be pending at once, pending
	// savepoints included. Every checkpoint trigger respects it; a savepoint
	// request does not, as in Flink. Default 1.
	MaxConcurrent int
	// TolerableFailures is how many consecutive checkpoint failures are
	// tolerated before the coordinator asks to fail the job
	// ([JobFailure]); UnlimitedFailures tolerates any number. Default 0,
	// Flink's: the first failed checkpoint fails the job.
	TolerableFailures int
	// Retained is how many completed checkpoints are kept; older ones are
	// reported as [Subsumed]. Default 1.
	Retained int
	// FinalCheckpointOnEndOfData triggers a checkpoint at once when every
	// task reached end of data, so that a bounded job's two-phase-commit
	// sinks commit their last data and the job ends without waiting for the
	// next interval (and, beyond Flink, promptly for each pipelined region
	// that reached end of data). Default true.
	FinalCheckpointOnEndOfData bool
	// NoCheckpointsAfterTasksFinish turns FLIP-147 off, as Flink's
	// execution.checkpointing.checkpoints-after-tasks-finish.enabled=false
	// does: once any task finished, no checkpoint is triggered any more
	// (and tasks do not wait for a final checkpoint; the caller sees to
	// that). Default false.
	NoCheckpointsAfterTasksFinish bool
}

// Defaults of the Options fields.
const (
	DefaultTimeout       = 10 * time.Minute
	DefaultMaxConcurrent = 1
	DefaultRetained      = 1
)

// DefaultOptions returns Flink's defaults: checkpointing disabled, timeout
// 10 minutes, no min pause, one concurrent checkpoint, no tolerated
// failure, one retained checkpoint, final checkpoint on end of data.
func DefaultOptions() Options {
	return Options{
		Timeout:                    DefaultTimeout,
		MaxConcurrent:              DefaultMaxConcurrent,
		Retained:                   DefaultRetained,
		FinalCheckpointOnEndOfData: true,
	}
}

// EnsureDefaults fills the zero Timeout, MaxConcurrent and Retained with
// their defaults and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxConcurrent == 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.Retained == 0 {
		o.Retained = DefaultRetained
	}
	return o
}

// Validate reports the first invalid setting.
func (o *Options) Validate() error {
	switch {
	case o.Enabled && o.Interval <= 0:
		return fmt.Errorf("checkpoint: options: Interval %v must be positive when Enabled", o.Interval)
	case o.Interval < 0:
		return fmt.Errorf("checkpoint: options: negative Interval %v", o.Interval)
	case o.Timeout <= 0:
		return fmt.Errorf("checkpoint: options: Timeout %v must be positive", o.Timeout)
	case o.MinPauseBetween < 0:
		return fmt.Errorf("checkpoint: options: negative MinPauseBetween %v", o.MinPauseBetween)
	case o.MaxConcurrent < 1:
		return fmt.Errorf("checkpoint: options: MaxConcurrent %d must be at least 1", o.MaxConcurrent)
	case o.TolerableFailures < UnlimitedFailures:
		return fmt.Errorf("checkpoint: options: TolerableFailures %d must be >= 0 or UnlimitedFailures", o.TolerableFailures)
	case o.Retained < 1:
		return fmt.Errorf("checkpoint: options: Retained %d must be at least 1", o.Retained)
	}
	return nil
}
