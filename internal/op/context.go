package op

import (
	"log/slog"
	"time"

	"github.com/weir-engine/weir/internal/keygroup"
)

// Context is what a task hands each operator of its chain at Open.
type Context struct {
	// JobID names the job; Attempt is the job's restart generation (0 for
	// the first run).
	JobID   string
	Attempt int
	// Name is the operator's display name; UID its stable id.
	Name, UID string
	// SubtaskIndex and Parallelism identify this subtask of the operator.
	SubtaskIndex, Parallelism int
	// MaxParallelism is the number of key groups.
	MaxParallelism int
	// KeyGroups is the range of key groups this subtask owns.
	KeyGroups keygroup.Range
	// Logger is scoped to the task.
	Logger *slog.Logger
	// Timers runs processing-time callbacks on the task's goroutine.
	Timers TimerScheduler
	// Mailbox runs actions on the task's goroutine.
	Mailbox Mailbox
	// Done is closed when the task is cancelled or failed: an operator
	// that blocks the task's goroutine (waiting for its own asynchronous
	// work) stops waiting then. Nil blocks forever.
	Done <-chan struct{}
	// Checkpointing says whether the job takes checkpoints; without them a
	// two-phase-commit sink commits at the end of its input.
	Checkpointing bool
	// Splits asks the source's enumerator for splits (sources with dynamic
	// split assignment only; nil otherwise).
	Splits SplitRequester
	// Alignment reports the watermark of a source with an alignment group
	// (nil otherwise, or when the runtime does not align).
	Alignment WatermarkAligner
	// StateBackend says where keyed state lives.
	StateBackend StateBackend
	// Restored is the state to start from, or nil for a fresh start.
	Restored *Restored
	// SideOutputs holds an Output[S] per side-output tag id that has a
	// consumer; a tag without consumer is absent, and emitting to it is a
	// no-op.
	SideOutputs map[string]any
}

// ProcessingTime is the task's processing-time clock in milliseconds.
func (c *Context) ProcessingTime() int64 { return c.Timers.Now().UnixMilli() }

// TimerScheduler schedules callbacks in processing time. Callbacks run on the
// task's goroutine; an error they return fails the task.
type TimerScheduler interface {
	Now() time.Time
	// Schedule runs fn at or after t. Callbacks due at the same time run in
	// the order they were scheduled in.
	Schedule(t time.Time, fn func() error) TimerID
	// Cancel drops the callback id if it has not run; cancelling one that
	// ran, or the zero TimerID, does nothing.
	Cancel(id TimerID)
}

// A TimerID names a callback scheduled with a TimerScheduler; the zero
// TimerID names none.
type TimerID uint64

// Mailbox lets any goroutine hand an action to the task's goroutine.
type Mailbox interface {
	// Put enqueues an action; it returns false when the task has ended.
	Put(action func() error) bool
}

// StateBackend configures where keyed operators keep their state: on the
// Go heap (the zero value, Flink's HashMapStateBackend) or in Pebble, an
// LSM tree on local disk (Flink's EmbeddedRocksDBStateBackend).
type StateBackend struct {
	// Pebble selects the Pebble backend.
	Pebble bool
	// LocalDir is where Pebble backends make their working directories
	// (os.TempDir() when empty).
	LocalDir string
	// Incremental makes Pebble checkpoints upload only the SST files that
	// earlier completed checkpoints did not already hold.
	Incremental bool
	// LocalRecovery keeps a local copy of each Pebble subtask's latest
	// completed checkpoint on its TaskManager, to restore from instead of
	// checkpoint storage when the subtask comes back there with the same
	// key groups (Flink's state.backend.local-recovery).
	LocalRecovery bool
	// LocalRecoveryDir is where the TaskManager keeps those copies, one
	// directory per TaskManager; set by the TaskManager when LocalRecovery
	// is on ("": no local copies).
	LocalRecoveryDir string
}
