package source

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
)

// defaultRequestInterval is how long a subtask waits to ask again when
// the enumerator had no split for it but may have one later.
const defaultRequestInterval = time.Second

// Split replies of an Enumerator carry a tag byte, so that "none now,
// ask later" differs from a split whose encoding is empty.
const (
	replyNoneNow byte = 0
	replySplit   byte = 1
)

// taggedEnumerator adapts an Enumerator to the runtime's op.Enumerator.
type taggedEnumerator[S any] struct {
	e     Enumerator[S]
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

// builtinEnumerator is the built-in enumerator as an Enumerator.
type builtinEnumerator[S any] struct{ *enumerator[S] }

func (b builtinEnumerator[S]) Next(subtask int) (S, bool, bool) { return b.NextSplit(subtask) }
func (b builtinEnumerator[S]) Close() error                     { return nil }

// readerEnumerator creates the enumerator of a dynamic source read by a
// SourceReader.
func readerEnumerator[T, S any](src Spec[T, S], p int, restored []byte) (op.Enumerator, error) {
	c, err := codec.For[S]()
	if err != nil {
		return nil, fmt.Errorf("split type: %w", err)
	}
	var e Enumerator[S]
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

// readerSourceOp is the source operator of a split source read by a
// Reader.
type readerSourceOp[T, S any] struct {
	op.Base
	src     Spec[T, S]
	out     op.Output[T]
	ctx     *op.Context
	codec   codec.Codec[S]
	reader  Reader[T, S]
	outputs *splitOutputs[T]
	status  func(idle bool) error // see SetWatermarkStatus
	align   *aligner              // nil: no watermark alignment
	paused  bool                  // by alignment, at the last poll
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
	s.align = startAlignment(ctx, s.src.Watermarks, s.outputs)
	return nil
}

// Available is the reader's, except while alignment pauses the subtask:
// then the next answer of the alignment coordinator (through the mailbox)
// is what wakes it.
func (s *readerSourceOp[T, S]) Available() <-chan struct{} {
	if s.paused {
		return nil
	}
	return s.reader.Available()
}

func (s *readerSourceOp[T, S]) PollNext() (op.Status, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.align != nil {
		paused, err := blocked(s.align, s.outputs, s.reader)
		if s.paused = paused; err != nil || paused {
			return op.NothingAvailable, err
		}
	}
	st, err := s.reader.Poll(Batch)
	if err != nil {
		return 0, err
	}
	switch st {
	case ReadMore:
		return op.MoreAvailable, nil
	case ReadFinished:
		if s.noMore {
			if s.align != nil {
				s.align.finish()
			}
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
