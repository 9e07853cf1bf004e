package weir

import (
	"log/slog"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/source"
)

// SourceReader reads all the splits a source subtask holds side by side,
// as Flink's SourceReader does: for sources whose splits never end (the
// partitions of a Kafka topic) or whose records arrive from a client that
// fetches for many splits at once. SplitSource.NewSourceReader creates one
// per subtask; its methods run on the subtask's goroutine.
type SourceReader[T, S any] interface {
	// AddSplits hands the reader splits to read: restored from a checkpoint
	// at Open, or assigned by the enumerator while the job runs. The reader
	// emits each split's records through ReaderContext.Output.ForSplit.
	AddSplits(splits []S) error
	// Poll emits up to budget elements and says what comes next.
	Poll(budget int) (ReadStatus, error)
	// Available is closed or receives when a reader that reported
	// ReadNothing may have more to read.
	Available() <-chan struct{}
	// SnapshotSplits returns the splits the reader holds and has not
	// finished, with their positions, for checkpoint checkpointID.
	SnapshotSplits(checkpointID int64) ([]S, error)
	// NotifyCheckpointComplete says that checkpoint checkpointID completed
	// (a reader may tell an external system how far it read, as Flink's
	// Kafka source commits offsets).
	NotifyCheckpointComplete(checkpointID int64) error
	// Close releases the reader's resources. It never emits.
	Close() error
}

// ReadStatus is what SourceReader.Poll reports.
type ReadStatus = source.ReadStatus

const (
	// ReadMore: poll again at once.
	ReadMore = source.ReadMore
	// ReadNothing: nothing to read now; wait for Available.
	ReadNothing = source.ReadNothing
	// ReadFinished: the reader holds no split that is not finished. The
	// source ends when no more splits will come.
	ReadFinished = source.ReadFinished
)

// ReaderContext is what a SourceReader gets at its creation.
type ReaderContext[T any] struct {
	// SubtaskIndex and Parallelism identify the reader's source subtask.
	SubtaskIndex, Parallelism int
	// Attempt is the job's restart generation.
	Attempt int
	// Logger is scoped to the subtask.
	Logger *slog.Logger
	// Output is where the reader emits, split by split.
	Output ReaderOutput[T]
}

// ReaderOutput gives a reader an output per split (Flink's
// ReaderOutput.createOutputForSplit), so that with SplitSource.Watermarks
// each split has its own watermark: the subtask's watermark is the least
// of its splits' that are not idle.
type ReaderOutput[T any] interface {
	// ForSplit returns the output of the split with the given id, creating
	// it: from now on the split holds the subtask's watermark back until
	// it emits or becomes idle.
	ForSplit(id string) SplitOutput[T]
	// ReleaseSplit forgets a split that ended.
	ReleaseSplit(id string)
}

// SplitOutput emits the elements of one split: Collect(ts, v) emits v with
// the timestamp the split's record carries in milliseconds (a Kafka
// record's timestamp), or NoTimestamp. With SplitSource.Watermarks, the
// strategy's Timestamp function, when set, decides the element's timestamp
// instead.
type SplitOutput[T any] = source.SplitOutput[T]

// NoTimestamp is the timestamp of an element that has none.
const NoTimestamp = op.NoTimestamp

// SplitEnumerator hands out the splits of a dynamic split source (FLIP-27's
// SplitEnumerator) for SplitSource.NewEnumerator. It lives on the
// JobMaster's loop: its methods are never called concurrently and must not
// block; work that waits (asking an external system for new splits) runs
// on a goroutine of its own, which Close stops.
type SplitEnumerator[S any] interface {
	// Next returns a split for subtask (ok). When it has none, more says
	// whether one may come later: the subtask then asks again after
	// SplitSource.RequestInterval; otherwise the subtask ends once it
	// finished the splits it holds.
	Next(subtask int) (split S, ok, more bool)
	// Snapshot returns the enumerator's state for a checkpoint; a restored
	// job passes it to NewEnumerator.
	Snapshot() ([]byte, error)
	// Close releases the enumerator when its run ends.
	Close() error
}
