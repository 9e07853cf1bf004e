package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"
)

// JobRunner is what the command line needs of the engine: the root package
// implements it over the job registry and Env.
type JobRunner interface {
	// Jobs lists the jobs that can be run, sorted by name.
	Jobs() []JobInfo
	// Err reports a defect of the binary itself, such as a job registered
	// twice; while it is non-nil every command fails with it.
	Err() error
	// Run builds the job req.Job and executes it until it ends or ctx is
	// canceled. It returns a UsageError when the job cannot be built from
	// req (the builder rejected its arguments, or the program is invalid),
	// an error matching flag.ErrHelp when the job's help was asked for,
	// and any other error when the job failed.
	Run(ctx context.Context, req RunRequest) (RunSummary, error)
}

// JobInfo describes a registered job.
type JobInfo struct {
	Name        string
	Description string
}

// RunRequest is one `weir run`.
type RunRequest struct {
	// Job is the registered name of the job.
	Job string
	// Args are the job's own arguments, in the order given.
	Args []string
	// Engine holds the engine flags.
	Engine EngineFlags
	// Stdout receives the job's printed output (weir.Print); Stderr the
	// engine's messages (e.g. where the REST API listens).
	Stdout, Stderr io.Writer
	// Logger is the engine's log, on Stderr at the level the engine flags
	// ask for (NewLogger).
	Logger *slog.Logger
	// Progress, when set, is called now and then while a bounded job runs
	// (`weir run` in a terminal), from a goroutine of the runner's, and not
	// after Run returned.
	Progress func(Progress)
}

// RunSummary describes a finished job for the summary line.
type RunSummary struct {
	JobID    string
	Duration time.Duration
	// Records counts the records that crossed a task boundary (the
	// engine's network counters; a fully chained job reports 0).
	Records int64
	// Restarts is how often the job restarted after a failure and
	// recovered.
	Restarts int
	// Savepoint is the location of the savepoint the job was stopped
	// with ('weir stop'); empty when it ended otherwise.
	Savepoint string
	// Vertices and Checkpoints (completed) are for the summary table.
	Vertices    []VertexSummary
	Checkpoints int
}

// UsageError marks an error as the user's to fix in the command line:
// `weir` exits 2 with it.
type UsageError struct{ Err error }

// Usage wraps err as a UsageError (nil stays nil).
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}

// Error returns the wrapped error's message.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *UsageError) Unwrap() error { return e.Err }

// isUsage reports whether err is a UsageError.
func isUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}
