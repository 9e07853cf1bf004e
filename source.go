package weir

import (
	"encoding/binary"
	"fmt"
	"iter"

	"github.com/weir-engine/weir/internal/op"
)

// sourceBatch is how many elements a source emits per poll of its task's
// loop: enough to amortize the loop, few enough to keep mail responsive.
const sourceBatch = 512

// strideSplit is a position in an index space read with a stride: the
// split of subtask i of p reads i, i+p, i+2p, ...
type strideSplit struct {
	Next, Step int64
}

func strideSplits(p int) ([]strideSplit, error) {
	s := make([]strideSplit, p)
	for i := range s {
		s[i] = strideSplit{Next: int64(i), Step: int64(p)}
	}
	return s, nil
}

// FromSlice is a bounded source of the given elements (copied now). With
// parallelism p, subtask i emits the elements at indexes i, i+p, i+2p, ...
func FromSlice[T any](env *Env, items []T) DataStream[T] {
	data := append([]T(nil), items...)
	n := int64(len(data))
	return FromSplits(env, SplitSource[T, strideSplit]{
		Name:   "FromSlice",
		Splits: strideSplits,
		Read: func(s *strideSplit, budget int, emit func(T) error) (bool, error) {
			for ; budget > 0 && s.Next < n; budget-- {
				if err := emit(data[s.Next]); err != nil {
					return false, err
				}
				s.Next += s.Step
			}
			return s.Next >= n, nil
		},
	})
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
	if g.Fn == nil {
		return invalid[T](env, fmt.Errorf("weir: Generate: nil function"))
	}
	bounded := g.Count > 0
	return FromSplits(env, SplitSource[T, strideSplit]{
		Name:          "Generator",
		Dynamic:       true,
		Splits:        strideSplits,
		Unbounded:     !bounded,
		RatePerSecond: g.RatePerSecond,
		Read: func(s *strideSplit, budget int, emit func(T) error) (bool, error) {
			for ; budget > 0 && (!bounded || s.Next < g.Count); budget-- {
				v, err := g.Fn(s.Next)
				if err != nil {
					return false, fmt.Errorf("generate element %d: %w", s.Next, err)
				}
				if err := emit(v); err != nil {
					return false, err
				}
				s.Next += s.Step
			}
			return bounded && s.Next >= g.Count, nil
		},
	})
}

// FromIter is a bounded, non-parallel source over an iterator (parallelism
// 1: one sequence cannot be split). Its checkpoint is the number of
// elements emitted; a restored job starts the iterator again and skips
// them, so the iterator must yield the same sequence every time.
func FromIter[T any](env *Env, seq iter.Seq[T]) DataStream[T] {
	if seq == nil {
		return invalid[T](env, fmt.Errorf("weir: FromIter: nil iterator"))
	}
	return addSource[T](env, "FromIter", true, 1, func(out any) (any, error) {
		return &iterSource[T]{seq: seq, out: out.(op.Output[T])}, nil
	})
}

const iterState = "emitted"

type iterSource[T any] struct {
	op.Base
	seq     iter.Seq[T]
	next    func() (T, bool)
	stop    func()
	out     op.Output[T]
	emitted int64
}

func (s *iterSource[T]) Open(ctx *op.Context) error {
	s.next, s.stop = iter.Pull(s.seq)
	if e := ctx.Restored.List(iterState); len(e) == 1 {
		skip, n := binary.Varint(e[0])
		if n <= 0 {
			return fmt.Errorf("restore: corrupt %s state", iterState)
		}
		for ; s.emitted < skip; s.emitted++ {
			if _, ok := s.next(); !ok {
				return fmt.Errorf("restore: the iterator ended after %d elements, the checkpoint had %d", s.emitted, skip)
			}
		}
	}
	return nil
}

func (s *iterSource[T]) PollNext() (op.Status, error) {
	for n := 0; n < sourceBatch; n++ {
		v, ok := s.next()
		if !ok {
			return op.EndOfInput, nil
		}
		s.emitted++
		if err := s.out.Collect(op.NoTimestamp, v); err != nil {
			return 0, err
		}
	}
	return op.MoreAvailable, nil
}

func (s *iterSource[T]) Available() <-chan struct{} { return nil }

// SnapshotState stores how many elements were emitted.
func (s *iterSource[T]) SnapshotState(int64) (*op.Snapshot, error) {
	return &op.Snapshot{Lists: []op.NamedList{{Name: iterState, Mode: op.SplitList, Entries: [][]byte{binary.AppendVarint(nil, s.emitted)}}}}, nil
}

func (s *iterSource[T]) Close() error {
	if s.stop != nil {
		s.stop()
	}
	return nil
}
