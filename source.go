package weir

import (
	"fmt"
	"iter"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// sourceBatch is how many elements a source emits per poll of its task's
// loop: enough to amortize the loop, few enough to keep mail responsive.
const sourceBatch = 512

// addSource records a source transformation.
func addSource[T any](env *Env, name string, bounded bool, maxParallelism int, factory graph.Factory) DataStream[T] {
	env.sources = append(env.sources, &sourceInfo{name: name, bounded: bounded})
	return derive[T](env, &graph.Transformation{
		Kind: graph.KindSource, Name: name, OutType: typeinfo.New[T](), Factory: factory,
		MaxAllowedParallelism: maxParallelism,
	})
}

// FromSlice is a bounded source of the given elements (copied now). With
// parallelism p, subtask i emits the elements at indexes i, i+p, i+2p, ...
func FromSlice[T any](env *Env, items []T) DataStream[T] {
	data := append([]T(nil), items...)
	return addSource[T](env, "FromSlice", true, 0, func(out any) (any, error) {
		return &sliceSource[T]{data: data, out: out.(op.Output[T])}, nil
	})
}

type sliceSource[T any] struct {
	op.Base
	data      []T
	out       op.Output[T]
	next, inc int
}

func (s *sliceSource[T]) Open(ctx *op.Context) error {
	s.next, s.inc = ctx.SubtaskIndex, ctx.Parallelism
	return nil
}

func (s *sliceSource[T]) PollNext() (op.Status, error) {
	for n := 0; n < sourceBatch && s.next < len(s.data); n++ {
		if err := s.out.Collect(op.NoTimestamp, s.data[s.next]); err != nil {
			return 0, err
		}
		s.next += s.inc
	}
	if s.next >= len(s.data) {
		return op.EndOfInput, nil
	}
	return op.MoreAvailable, nil
}

func (s *sliceSource[T]) Available() <-chan struct{} { return nil }

// FromIter is a bounded, non-parallel source over an iterator (parallelism
// 1: one sequence cannot be split). The iterator is started in the
// subtask and stopped when the source closes.
func FromIter[T any](env *Env, seq iter.Seq[T]) DataStream[T] {
	if seq == nil {
		return invalid[T](env, fmt.Errorf("weir: FromIter: nil iterator"))
	}
	return addSource[T](env, "FromIter", true, 1, func(out any) (any, error) {
		return &iterSource[T]{seq: seq, out: out.(op.Output[T])}, nil
	})
}

type iterSource[T any] struct {
	op.Base
	seq  iter.Seq[T]
	next func() (T, bool)
	stop func()
	out  op.Output[T]
}

func (s *iterSource[T]) Open(*op.Context) error {
	s.next, s.stop = iter.Pull(s.seq)
	return nil
}

func (s *iterSource[T]) PollNext() (op.Status, error) {
	for n := 0; n < sourceBatch; n++ {
		v, ok := s.next()
		if !ok {
			return op.EndOfInput, nil
		}
		if err := s.out.Collect(op.NoTimestamp, v); err != nil {
			return 0, err
		}
	}
	return op.MoreAvailable, nil
}

func (s *iterSource[T]) Available() <-chan struct{} { return nil }

func (s *iterSource[T]) Close() error {
	if s.stop != nil {
		s.stop()
	}
	return nil
}

// Generator describes a data generator source.
type Generator[T any] struct {
	// Fn returns element i. It must be deterministic: a restored job calls
	// it again for the same i.
	Fn func(i int64) (T, error)
	// Count is the number of elements; 0 or less means unbounded.
	Count int64
	// RatePerSecond limits the total rate over all subtasks; 0 means as
	// fast as possible.
	RatePerSecond float64
}

// Generate is a source of Fn(0), Fn(1), ... With parallelism p, subtask i
// generates the indexes i, i+p, ..., each subtask at 1/p of the rate.
func Generate[T any](env *Env, g Generator[T]) DataStream[T] {
	switch {
	case g.Fn == nil:
		return invalid[T](env, fmt.Errorf("weir: Generate: nil function"))
	case g.RatePerSecond < 0:
		return invalid[T](env, fmt.Errorf("weir: Generate: negative rate %v", g.RatePerSecond))
	}
	return addSource[T](env, "Generator", g.Count > 0, 0, func(out any) (any, error) {
		return &generatorSource[T]{gen: g, out: out.(op.Output[T])}, nil
	})
}

type generatorSource[T any] struct {
	op.Base
	gen     Generator[T]
	out     op.Output[T]
	ctx     *op.Context
	next    int64
	inc     int64
	emitted int64
	start   time.Time
	rate    float64 // per subtask
	waiting bool
}

func (s *generatorSource[T]) Open(ctx *op.Context) error {
	s.ctx = ctx
	s.next, s.inc = int64(ctx.SubtaskIndex), int64(ctx.Parallelism)
	s.start = ctx.Timers.Now()
	s.rate = s.gen.RatePerSecond / float64(ctx.Parallelism)
	return nil
}

func (s *generatorSource[T]) PollNext() (op.Status, error) {
	budget := int64(sourceBatch)
	if s.rate > 0 {
		now := s.ctx.Timers.Now()
		allowed := int64(now.Sub(s.start).Seconds()*s.rate) + 1 - s.emitted
		if allowed <= 0 {
			if !s.waiting {
				// Wake the task's loop when the next element is due.
				s.waiting = true
				due := s.start.Add(time.Duration(float64(s.emitted) / s.rate * float64(time.Second)))
				s.ctx.Timers.Schedule(due, func() error { s.waiting = false; return nil })
			}
			return op.NothingAvailable, nil
		}
		budget = min(budget, allowed)
	}
	for n := int64(0); n < budget; n++ {
		if s.gen.Count > 0 && s.next >= s.gen.Count {
			return op.EndOfInput, nil
		}
		v, err := s.gen.Fn(s.next)
		if err != nil {
			return 0, fmt.Errorf("generate element %d: %w", s.next, err)
		}
		if err := s.out.Collect(op.NoTimestamp, v); err != nil {
			return 0, err
		}
		s.next += s.inc
		s.emitted++
	}
	if s.gen.Count > 0 && s.next >= s.gen.Count {
		return op.EndOfInput, nil
	}
	return op.MoreAvailable, nil
}

func (s *generatorSource[T]) Available() <-chan struct{} { return nil }
