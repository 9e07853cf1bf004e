package twophase

import (
	"context"
	"log/slog"
)

// The interfaces of this file have the method sets of package weir's Sink
// API (weir.SinkWriter, weir.Committer, weir.StatefulSinkWriter,
// weir.CleaningSinkWriter), so that the user's values are these as they
// are, and Context the fields of weir.SinkContext, which converts to it.

// Sink creates the writer and the committer of a subtask.
type Sink[T, C any] interface {
	CreateWriter(ctx context.Context, info Context) (Writer[T, C], error)
	CreateCommitter(ctx context.Context, info Context) (Committer[C], error)
}

// Context tells a writer or committer where it runs (weir.SinkContext
// documents the fields).
type Context struct {
	JobID                string
	OperatorUID          string
	SubtaskIndex         int
	Parallelism          int
	AttemptNumber        int
	RestoredFromID       int64
	RestoredWriterStates [][]byte
	Lineage              string
	Logger               *slog.Logger
}

// Writer writes the elements of one subtask into a pending transaction.
type Writer[T, C any] interface {
	Write(ctx context.Context, v T) error
	Flush(ctx context.Context, endOfInput bool) error
	PrepareCommit(ctx context.Context, checkpointID int64) ([]C, error)
	Close() error
}

// StatefulWriter is a Writer with state of its own beside its
// committables.
type StatefulWriter interface {
	SnapshotState(checkpointID int64) ([]byte, error)
}

// CleaningWriter is a Writer told when its subtask's output is complete.
type CleaningWriter interface {
	AllCommitted(ctx context.Context) error
}

// Committer commits committables once their checkpoint completed.
type Committer[C any] interface {
	Commit(ctx context.Context, committables []C) error
	Close() error
}
