package checkpoint

import "errors"

// Reasons a checkpoint fails, a request is refused or the job must fail.
// Failed.Reason and JobFailure.Reason wrap one of them (errors.Is works);
// the wrapped detail says which task or which underlying error.
var (
	// ErrDeclined: a task declined the checkpoint. Counts as a failure.
	ErrDeclined = errors.New("checkpoint: declined by a task")
	// ErrExpired: the checkpoint was not acknowledged within the timeout.
	// Counts as a failure.
	ErrExpired = errors.New("checkpoint: expired before every task acknowledged")
	// ErrPersistFailed: writing the metadata failed (Persisted.Err).
	// Counts as a failure.
	ErrPersistFailed = errors.New("checkpoint: persisting the metadata failed")
	// ErrTaskFinished: a task the checkpoint waited for finished without
	// acknowledging it and had not reached end of data before the trigger,
	// so its state can never be part of it. Not counted as a failure: it is
	// a race of finishing tasks with the trigger, which the next checkpoint,
	// planned without the task, does not have (FLIP-147).
	ErrTaskFinished = errors.New("checkpoint: a task finished before acknowledging")
	// ErrNotReady: the tasks are not in a state the checkpoint can capture
	// (FLIP-147: an operator with union list state has some subtasks
	// finished and some running, so the finished ones' entries would be
	// missing from every subtask's union). Persisted.Err wraps it. Not
	// counted: it passes once the other subtasks finish too, and the
	// final checkpoint then completes.
	ErrNotReady = errors.New("checkpoint: tasks not ready")
	// ErrSubsumed: a later checkpoint completed first. Not counted.
	ErrSubsumed = errors.New("checkpoint: subsumed by a later completed checkpoint")
	// ErrFailover: the tasks were restarted. Not counted.
	ErrFailover = errors.New("checkpoint: aborted by a failover")
	// ErrTolerableExceeded is JobFailure's reason: more consecutive failed
	// checkpoints than Options.TolerableFailures.
	ErrTolerableExceeded = errors.New("checkpoint: exceeded the tolerable number of consecutive failed checkpoints")
	// ErrDisabled refuses a checkpoint request while checkpointing is
	// disabled (savepoints are still possible).
	ErrDisabled = errors.New("checkpoint: checkpointing is disabled")
	// ErrNoRunningTasks refuses a request when every task has finished.
	ErrNoRunningTasks = errors.New("checkpoint: no task is running")
)

// counted reports whether a failure with this reason counts towards the
// tolerable failures, as in Flink's CheckpointFailureManager: declines,
// expiries and storage errors do; aborts the coordinator causes itself
// (subsumption, failover, finished tasks) do not.
func counted(reason error) bool {
	return errors.Is(reason, ErrDeclined) || errors.Is(reason, ErrExpired) || errors.Is(reason, ErrPersistFailed)
}
