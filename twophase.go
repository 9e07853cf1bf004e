package weir

import (
	"context"
	"log/slog"
)

// Two-phase-commit sinks, in the shape of Flink's Sink API (FLIP-143/191):
// a SinkWriter per subtask writes elements into a pending transaction;
// when a checkpoint is taken it pre-commits and hands back committables
// (what is needed to commit later: a transaction id, a pending file name);
// once the checkpoint is complete a Committer commits them. Committables are
// part of the checkpoint, so after a failure the restored job commits again
// whatever a previous attempt pre-committed but may not have committed: a
// Committer must be idempotent.

// Sink is a two-phase-commit sink for elements of T with committables of
// type C. C must be serializable (see the codec rules: structs of plain
// fields work).
type Sink[T, C any] interface {
	// CreateWriter returns the writer of one subtask.
	CreateWriter(ctx context.Context, info SinkContext) (SinkWriter[T, C], error)
	// CreateCommitter returns a committer; one runs per sink subtask.
	CreateCommitter(ctx context.Context, info SinkContext) (Committer[C], error)
}

// SinkContext tells a writer or committer where it runs.
type SinkContext struct {
	JobID          string
	OperatorUID    string
	SubtaskIndex   int
	Parallelism    int
	AttemptNumber  int
	RestoredFromID int64 // the checkpoint restored from; 0 for a fresh start
	// RestoredWriterStates holds, when the job was restored, some of what
	// the writers of the restored checkpoint returned from
	// StatefulSinkWriter.SnapshotState: the states are dealt out over the
	// new subtasks (as Flink's operator list state), each to exactly one,
	// so that the subtask that gets a writer's state can tell what that
	// writer wrote after the checkpoint.
	RestoredWriterStates [][]byte
	// Lineage names the chain of jobs this one continues, each restored
	// from a checkpoint of the one before: the id of the first. A fresh
	// job is its own lineage; jobs restored from the same checkpoint share
	// one (a rerun after a crash and the crashed run, too). It is empty
	// after a restore from a checkpoint taken before lineages were kept.
	Lineage string
	// Logger is scoped to the sink's subtask.
	Logger *slog.Logger
}

// SinkWriter writes the elements of one subtask.
type SinkWriter[T, C any] interface {
	Write(ctx context.Context, v T) error
	// Flush is called at the end of input (endOfInput true, from finish)
	// and before each PrepareCommit.
	Flush(ctx context.Context, endOfInput bool) error
	// PrepareCommit pre-commits what was written since the last call for
	// checkpoint checkpointID and returns the committables; the writer
	// starts a new transaction for what follows.
	PrepareCommit(ctx context.Context, checkpointID int64) ([]C, error)
	// Close releases resources; uncommitted work may be abandoned.
	Close() error
}

// StatefulSinkWriter is a SinkWriter with state of its own beside its
// committables: how far it got, so that a restored job can find what a
// failed run left behind that no committable references (a pending file
// opened after the last checkpoint).
type StatefulSinkWriter interface {
	// SnapshotState returns the writer's state at checkpoint
	// checkpointID, right after PrepareCommit for it. A job restored from
	// the checkpoint deals the states out over the new writers, in
	// SinkContext.RestoredWriterStates.
	SnapshotState(checkpointID int64) ([]byte, error)
}

// CleaningSinkWriter is a SinkWriter told when its subtask's output is
// complete, to remove what earlier attempts of the job left behind.
type CleaningSinkWriter interface {
	// AllCommitted is called once, when the subtask's input ended and all
	// it pre-committed is committed: after the final checkpoint completed
	// (or at the end of input when checkpoints are off). By then every
	// subtask of the sink has committed the committables it restored, so
	// nothing an earlier attempt left is still to be committed.
	AllCommitted(ctx context.Context) error
}

// Committer commits committables once their checkpoint completed.
type Committer[C any] interface {
	// Commit commits each committable. It must be idempotent: after a
	// restore it may see committables that were already committed.
	Commit(ctx context.Context, committables []C) error
	Close() error
}
