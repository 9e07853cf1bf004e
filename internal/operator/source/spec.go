package source

import (
	"log/slog"
	"time"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/watermark"
)

// Batch is how many elements a source emits per poll of its task's loop:
// enough to amortize the loop, few enough to keep mail responsive.
const Batch = 512

// Spec is a split source as the runtime sees it: package weir's
// SplitSource, whose fields it has and documents, with the user's
// interfaces as this package's (their method sets are the same).
type Spec[T, S any] struct {
	Splits          func(parallelism int) ([]S, error)
	Read            func(split *S, budget int, emit func(T) error) (done bool, err error)
	NewReader       func() SplitReader[T, S]
	Unbounded       bool
	RatePerSecond   float64
	Dynamic         bool
	NewSourceReader func(ReaderContext[T]) (Reader[T, S], error)
	NewEnumerator   func(parallelism int, restored []byte) (Enumerator[S], error)
	RequestInterval time.Duration
	Watermarks      *watermark.Strategy[T]
	// Progress says how far a split is through its input (weir.SplitSource.Progress).
	Progress func(split *S) (done, total int64)
	// Fill, when set beside Read, is Read writing up to len(buf) elements
	// into buf instead of emitting them one by one: the batch path
	// (op.BatchOutput) uses it to save a call per element.
	Fill func(split *S, buf []T) (n int, done bool, err error)
}

// SplitReader reads one split after the other (weir.SplitReader).
type SplitReader[T, S any] interface {
	Read(split *S, budget int, emit func(T) error) (done bool, err error)
	Close() error
}

// Reader reads all the splits of a subtask side by side
// (weir.SourceReader).
type Reader[T, S any] interface {
	AddSplits(splits []S) error
	Poll(budget int) (ReadStatus, error)
	Available() <-chan struct{}
	SnapshotSplits(checkpointID int64) ([]S, error)
	NotifyCheckpointComplete(checkpointID int64) error
	Close() error
}

// ReadStatus is what Reader.Poll reports (package weir's ReadStatus is
// this type).
type ReadStatus int

const (
	// ReadMore: poll again at once.
	ReadMore ReadStatus = iota
	// ReadNothing: nothing to read now; wait for Available.
	ReadNothing
	// ReadFinished: the reader holds no split that is not finished.
	ReadFinished
)

// ReaderContext is what a Reader gets at its creation (the fields of
// weir.ReaderContext).
type ReaderContext[T any] struct {
	SubtaskIndex, Parallelism int
	Attempt                   int
	Logger                    *slog.Logger
	Output                    ReaderOutput[T]
}

// ReaderOutput gives a reader an output per split (weir.ReaderOutput).
type ReaderOutput[T any] interface {
	ForSplit(id string) SplitOutput[T]
	ReleaseSplit(id string)
}

// SplitOutput emits the elements of one split (package weir's SplitOutput
// is this type).
type SplitOutput[T any] interface {
	Collect(ts int64, v T) error
}

// Enumerator hands out the splits of a dynamic source on the JobMaster's
// loop (weir.SplitEnumerator).
type Enumerator[S any] interface {
	Next(subtask int) (split S, ok, more bool)
	Snapshot() ([]byte, error)
	Close() error
}

// New returns the source operator of one subtask of src, emitting to out.
func New[T, S any](src Spec[T, S], out op.Output[T]) any {
	if src.NewSourceReader != nil {
		return &readerSourceOp[T, S]{src: src, out: out}
	}
	return &splitSourceOp[T, S]{src: src, out: out}
}

// NewEnumeratorFactory returns the factory of the split enumerator of a
// Dynamic src, which the JobMaster creates (from its snapshot on restore).
func NewEnumeratorFactory[T, S any](src Spec[T, S]) op.EnumeratorFactory {
	if src.NewSourceReader != nil {
		return func(p int, restored []byte) (op.Enumerator, error) {
			return readerEnumerator(src, p, restored)
		}
	}
	return func(p int, restored []byte) (op.Enumerator, error) {
		return newEnumerator(src, p, restored)
	}
}
