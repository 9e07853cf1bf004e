package source

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
)

// splitsState is the name of the operator list state holding the splits.
const splitsState = "splits"

type splitSourceOp[T, S any] struct {
	op.Base
	src    Spec[T, S]
	out    op.Output[T]
	ctx    *op.Context
	splits []S
	codec  codec.Codec[S]
	reader SplitReader[T, S]
	// batch is out when it takes batches (op.BatchOutput): a poll's
	// records are gathered in buf by appendBuf and handed on in one call.
	batch     op.BatchOutput[T]
	buf       []T
	appendBuf func(T) error
	// emit hands one record to out and counts it, made once.
	emit func(T) error
	// dynamic assignment: a request is out; the enumerator has no more
	requesting, exhausted bool
	// rate limiting, per subtask
	rate    float64
	err     error
	start   time.Time
	emitted int64
	// waiting is set while a wake-up is scheduled; wake ends it, made once.
	waiting bool
	wake    func() error
	// progress (with src.Progress): what the finished splits had, and for
	// a dynamic source the size of every split, which subtask 0 reports.
	finished, dynamicTotal int64
}

func (s *splitSourceOp[T, S]) Open(ctx *op.Context) error {
	s.ctx = ctx
	c, err := codec.For[S]()
	if err != nil {
		return fmt.Errorf("split type: %w", err)
	}
	s.codec = c
	if ctx.Restored != nil {
		for _, e := range ctx.Restored.List(splitsState) {
			sp, _, err := c.Decode(e)
			if err != nil {
				return fmt.Errorf("restore split: %w", err)
			}
			s.splits = append(s.splits, sp)
		}
	} else if !s.src.Dynamic {
		all, err := s.src.Splits(ctx.Parallelism)
		if err != nil {
			return fmt.Errorf("splits: %w", err)
		}
		for i := ctx.SubtaskIndex; i < len(all); i += ctx.Parallelism {
			s.splits = append(s.splits, all[i])
		}
	}
	if s.src.NewReader != nil {
		s.reader = s.src.NewReader()
	} else {
		s.reader = funcReader[T, S](s.src.Read)
	}
	if s.src.Progress != nil && s.src.Dynamic && ctx.SubtaskIndex == 0 {
		all, err := s.src.Splits(ctx.Parallelism)
		if err != nil {
			return fmt.Errorf("splits: %w", err)
		}
		for i := range all {
			_, t := s.src.Progress(&all[i])
			s.dynamicTotal += t
		}
	}
	if b, ok := s.out.(op.BatchOutput[T]); ok {
		s.batch = b
		s.appendBuf = func(v T) error { s.buf = append(s.buf, v); return nil }
	}
	s.emit = func(v T) error {
		s.emitted++
		return s.out.Collect(op.NoTimestamp, v)
	}
	s.rate = s.src.RatePerSecond / float64(ctx.Parallelism)
	s.start = ctx.Timers.Now()
	return nil
}

func (s *splitSourceOp[T, S]) Available() <-chan struct{} { return nil }

func (s *splitSourceOp[T, S]) PollNext() (op.Status, error) {
	if s.err != nil {
		return 0, s.err
	}
	if len(s.splits) == 0 && s.src.Dynamic && !s.exhausted {
		s.request()
		return op.NothingAvailable, nil
	}
	if len(s.splits) == 0 {
		if s.src.Unbounded {
			return op.NothingAvailable, nil
		}
		return op.EndOfInput, nil
	}
	budget := s.budget()
	if budget == 0 {
		return op.NothingAvailable, nil
	}
	var done bool
	var err error
	if s.batch != nil {
		done, err = s.readBatch(budget)
	} else {
		done, err = s.reader.Read(&s.splits[0], budget, s.emit)
	}
	if err != nil {
		return 0, err
	}
	if done {
		if s.src.Progress != nil {
			_, t := s.src.Progress(&s.splits[0])
			s.finished += t
		}
		var zero S
		s.splits[0] = zero
		s.splits = s.splits[1:]
	}
	return op.MoreAvailable, nil
}

// readBatch reads up to budget records of the first split into buf and
// hands them on as one batch; the records read before a read error go on
// first, as they would have one at a time.
func (s *splitSourceOp[T, S]) readBatch(budget int) (bool, error) {
	var done bool
	var err error
	if s.src.Fill != nil && s.src.NewReader == nil {
		if cap(s.buf) < budget {
			s.buf = make([]T, budget)
		}
		var n int
		n, done, err = s.src.Fill(&s.splits[0], s.buf[:budget])
		s.buf = s.buf[:n]
	} else {
		s.buf = s.buf[:0]
		done, err = s.reader.Read(&s.splits[0], budget, s.appendBuf)
	}
	s.emitted += int64(len(s.buf))
	if len(s.buf) > 0 {
		if err := s.batch.CollectBatch(nil, s.buf); err != nil {
			return false, err
		}
	}
	return done, err
}

// Progress implements op.SizedSource: how much of their input the
// subtask's splits emitted, and how much they have (the splits it holds
// and those it finished). A dynamic source's splits are handed out as the
// job runs: its subtask 0 reports the size of all of them and the others
// none, so that the vertex's sum is right. Without src.Progress the size
// is not known (-1).
func (s *splitSourceOp[T, S]) Progress() (emitted, total int64) {
	if s.src.Progress == nil {
		return s.emitted, -1
	}
	emitted, total = s.finished, s.finished
	for i := range s.splits {
		d, t := s.src.Progress(&s.splits[i])
		emitted += d
		total += t
	}
	if s.src.Dynamic {
		total = s.dynamicTotal
	}
	return emitted, total
}

// request asks the enumerator for the next split, once at a time; the
// reply arrives through the mailbox, which wakes the task's loop.
func (s *splitSourceOp[T, S]) request() {
	if s.requesting || s.ctx.Splits == nil {
		if s.ctx.Splits == nil {
			s.exhausted = true
		}
		return
	}
	s.requesting = true
	s.ctx.Splits.RequestSplit(func(b []byte, ok bool) {
		s.requesting = false
		if !ok {
			s.exhausted = true
			return
		}
		sp, _, err := s.codec.Decode(b)
		if err != nil {
			s.err = fmt.Errorf("decode an assigned split: %w", err)
			return
		}
		s.splits = append(s.splits, sp)
	})
}

// budget is how many elements the rate allows now; when none, it arranges
// a wake-up of the task's loop for when the next one is due.
func (s *splitSourceOp[T, S]) budget() int {
	if s.rate <= 0 {
		return Batch
	}
	now := s.ctx.Timers.Now()
	allowed := int64(now.Sub(s.start).Seconds()*s.rate) + 1 - s.emitted
	if allowed > 0 {
		return int(min(allowed, Batch))
	}
	if !s.waiting {
		s.waiting = true
		due := s.start.Add(time.Duration(float64(s.emitted) / s.rate * float64(time.Second)))
		if s.wake == nil {
			s.wake = func() error { s.waiting = false; return nil }
		}
		s.ctx.Timers.Schedule(due, s.wake)
	}
	return 0
}

// SnapshotState stores the remaining splits with their positions.
func (s *splitSourceOp[T, S]) SnapshotState(int64) (*op.Snapshot, error) {
	entries := make([][]byte, len(s.splits))
	for i, sp := range s.splits {
		entries[i] = s.codec.Append(nil, sp)
	}
	return &op.Snapshot{Lists: []op.NamedList{{Name: splitsState, Mode: op.SplitList, Entries: entries}}}, nil
}

func (s *splitSourceOp[T, S]) Close() error {
	if s.reader != nil {
		return s.reader.Close()
	}
	return nil
}

type funcReader[T, S any] func(split *S, budget int, emit func(T) error) (bool, error)

func (f funcReader[T, S]) Read(split *S, budget int, emit func(T) error) (bool, error) {
	return f(split, budget, emit)
}

func (f funcReader[T, S]) Close() error { return nil }

// enumerator hands out the splits of a dynamic split source; it lives on
// the JobMaster's loop.
type enumerator[S any] struct {
	codec      codec.Codec[S]
	unassigned []S
}

func newEnumerator[T, S any](src Spec[T, S], parallelism int, restored []byte) (*enumerator[S], error) {
	c, err := codec.For[S]()
	if err != nil {
		return nil, fmt.Errorf("split type: %w", err)
	}
	e := &enumerator[S]{codec: c}
	if restored != nil {
		n, m := binary.Uvarint(restored)
		if m <= 0 {
			return nil, errors.New("corrupt enumerator state")
		}
		rest := restored[m:]
		for i := uint64(0); i < n; i++ {
			sp, k, err := c.Decode(rest)
			if err != nil {
				return nil, fmt.Errorf("restore split %d: %w", i, err)
			}
			e.unassigned = append(e.unassigned, sp)
			rest = rest[k:]
		}
		return e, nil
	}
	if e.unassigned, err = src.Splits(parallelism); err != nil {
		return nil, fmt.Errorf("splits: %w", err)
	}
	return e, nil
}

// Next implements op.Enumerator: the oldest unassigned split goes to
// whichever subtask asks first.
func (e *enumerator[S]) Next(int) ([]byte, bool) {
	if len(e.unassigned) == 0 {
		return nil, false
	}
	sp := e.unassigned[0]
	e.unassigned = e.unassigned[1:]
	return e.codec.Append(nil, sp), true
}

// Snapshot implements op.Enumerator.
func (e *enumerator[S]) Snapshot() ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(len(e.unassigned)))
	for _, sp := range e.unassigned {
		b = e.codec.Append(b, sp)
	}
	return b, nil
}
