package weir

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
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
type ReadStatus int

const (
	// ReadMore: poll again at once.
	ReadMore ReadStatus = iota
	// ReadNothing: nothing to read now; wait for Available.
	ReadNothing
	// ReadFinished: the reader holds no split that is not finished. The
	// source ends when no more splits will come.
	ReadFinished
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

// SplitOutput emits the elements of one split.
type SplitOutput[T any] interface {
	// Collect emits v with the timestamp the split's record carries in
	// milliseconds (a Kafka record's timestamp), or NoTimestamp. With
	// SplitSource.Watermarks, the strategy's Timestamp function, when set,
	// decides the element's timestamp instead.
	Collect(ts int64, v T) error
}

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

// defaultRequestInterval is how long a subtask waits to ask again when
// the enumerator had no split for it but may have one later.
const defaultRequestInterval = time.Second

// Split replies of a SplitEnumerator carry a tag byte, so that "none now,
// ask later" differs from a split whose encoding is empty.
const (
	replyNoneNow byte = 0
	replySplit   byte = 1
)

// taggedEnumerator adapts a SplitEnumerator to the runtime's op.Enumerator.
type taggedEnumerator[S any] struct {
	e     SplitEnumerator[S]
	codec codec.Codec[S]
}

func (t *taggedEnumerator[S]) Next(subtask int) ([]byte, bool) {
	sp, ok, more := t.e.Next(subtask)
	switch {
	case ok:
		return t.codec.Append([]byte{replySplit}, sp), true
	case more:
		return []byte{replyNoneNow}, true
	}
	return nil, false
}

func (t *taggedEnumerator[S]) Snapshot() ([]byte, error) { return t.e.Snapshot() }

// Close implements io.Closer: the JobMaster closes enumerators when their
// run ends.
func (t *taggedEnumerator[S]) Close() error { return t.e.Close() }

// NextSplit lets the built-in enumerator serve a SourceReader source.
func (e *enumerator[S]) NextSplit(int) (S, bool, bool) {
	var zero S
	if len(e.unassigned) == 0 {
		return zero, false, false
	}
	sp := e.unassigned[0]
	e.unassigned = e.unassigned[1:]
	return sp, true, false
}

// builtinEnumerator is the built-in enumerator as a SplitEnumerator.
type builtinEnumerator[S any] struct{ *enumerator[S] }

func (b builtinEnumerator[S]) Next(subtask int) (S, bool, bool) { return b.NextSplit(subtask) }
func (b builtinEnumerator[S]) Close() error                     { return nil }

// readerEnumerator creates the enumerator of a dynamic source read by a
// SourceReader.
func readerEnumerator[T, S any](src SplitSource[T, S], p int, restored []byte) (op.Enumerator, error) {
	c, err := codec.For[S]()
	if err != nil {
		return nil, fmt.Errorf("split type: %w", err)
	}
	var e SplitEnumerator[S]
	if src.NewEnumerator != nil {
		e, err = src.NewEnumerator(p, restored)
	} else {
		var b *enumerator[S]
		b, err = newEnumerator(src, p, restored)
		e = builtinEnumerator[S]{b}
	}
	if err != nil {
		return nil, err
	}
	return &taggedEnumerator[S]{e: e, codec: c}, nil
}

// readerSourceOp is the source operator of a SplitSource with a
// SourceReader.
type readerSourceOp[T, S any] struct {
	op.Base
	src     SplitSource[T, S]
	out     op.Output[T]
	ctx     *op.Context
	codec   codec.Codec[S]
	reader  SourceReader[T, S]
	outputs *splitOutputs[T]
	status  func(idle bool) error // see SetWatermarkStatus
	// requesting: a request is out; noMore: no split will come any more
	requesting, noMore bool
	err                error
}

func (s *readerSourceOp[T, S]) Open(ctx *op.Context) error {
	s.ctx = ctx
	c, err := codec.For[S]()
	if err != nil {
		return fmt.Errorf("split type: %w", err)
	}
	s.codec = c
	s.outputs = newSplitOutputs(s.out, s.src.Watermarks, ctx.Timers)
	s.outputs.status = s.status
	s.reader, err = s.src.NewSourceReader(ReaderContext[T]{SubtaskIndex: ctx.SubtaskIndex,
		Parallelism: ctx.Parallelism, Attempt: ctx.Attempt, Logger: ctx.Logger, Output: s.outputs})
	if err != nil {
		return fmt.Errorf("create the source reader: %w", err)
	}
	var splits []S
	for _, e := range ctx.Restored.List(splitsState) {
		sp, _, err := c.Decode(e)
		if err != nil {
			return fmt.Errorf("restore split: %w", err)
		}
		splits = append(splits, sp)
	}
	if ctx.Restored == nil && !s.src.Dynamic {
		all, err := s.src.Splits(ctx.Parallelism)
		if err != nil {
			return fmt.Errorf("splits: %w", err)
		}
		for i := ctx.SubtaskIndex; i < len(all); i += ctx.Parallelism {
			splits = append(splits, all[i])
		}
	}
	if len(splits) > 0 {
		if err := s.reader.AddSplits(splits); err != nil {
			return err
		}
	}
	s.noMore = !s.src.Dynamic
	if s.src.Dynamic {
		s.request()
	}
	s.outputs.start()
	return nil
}

func (s *readerSourceOp[T, S]) Available() <-chan struct{} { return s.reader.Available() }

func (s *readerSourceOp[T, S]) PollNext() (op.Status, error) {
	if s.err != nil {
		return 0, s.err
	}
	st, err := s.reader.Poll(sourceBatch)
	if err != nil {
		return 0, err
	}
	switch st {
	case ReadMore:
		return op.MoreAvailable, nil
	case ReadFinished:
		if s.noMore {
			return op.EndOfInput, nil
		}
	}
	return op.NothingAvailable, nil
}

// request asks the enumerator for a split, one request at a time: after a
// split at once (there may be more), after "none now" once RequestInterval
// passed, after "no more" never again.
func (s *readerSourceOp[T, S]) request() {
	if s.requesting || s.noMore {
		return
	}
	if s.ctx.Splits == nil {
		s.noMore = true
		return
	}
	s.requesting = true
	s.ctx.Splits.RequestSplit(func(b []byte, ok bool) {
		s.requesting = false
		switch {
		case !ok:
			s.noMore = true
		case len(b) == 0 || b[0] == replyNoneNow:
			interval := s.src.RequestInterval
			if interval <= 0 {
				interval = defaultRequestInterval
			}
			s.ctx.Timers.Schedule(s.ctx.Timers.Now().Add(interval), func() error { s.request(); return nil })
		default:
			sp, _, err := s.codec.Decode(b[1:])
			if err != nil {
				s.err = fmt.Errorf("decode an assigned split: %w", err)
				return
			}
			if err := s.reader.AddSplits([]S{sp}); err != nil {
				s.err = err
				return
			}
			s.request()
		}
	})
}

// SnapshotState stores the reader's splits with their positions.
func (s *readerSourceOp[T, S]) SnapshotState(id int64) (*op.Snapshot, error) {
	splits, err := s.reader.SnapshotSplits(id)
	if err != nil {
		return nil, fmt.Errorf("snapshot the source reader: %w", err)
	}
	entries := make([][]byte, len(splits))
	for i, sp := range splits {
		entries[i] = s.codec.Append(nil, sp)
	}
	return &op.Snapshot{Lists: []op.NamedList{{Name: splitsState, Mode: op.SplitList, Entries: entries}}}, nil
}

func (s *readerSourceOp[T, S]) NotifyCheckpointComplete(id int64) error {
	return s.reader.NotifyCheckpointComplete(id)
}

func (s *readerSourceOp[T, S]) NotifyCheckpointAborted(int64) error { return nil }

func (s *readerSourceOp[T, S]) Close() error {
	if s.reader != nil {
		return s.reader.Close()
	}
	return nil
}
