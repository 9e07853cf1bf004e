package weir

import (
	"fmt"
	"iter"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/source"
)

// strideSplit is a position in an index space read with a stride: the
// split of subtask i of p reads i, i+p, i+2p, ...
type strideSplit struct {
	Next, Step int64
}

// strideProgress is the progress of split s through the indexes below n
// of its residue class: how many it emitted, of how many.
func strideProgress(s *strideSplit, n int64) (done, total int64) {
	r := s.Next % s.Step
	if r >= n {
		return 0, 0
	}
	total = (n - r + s.Step - 1) / s.Step
	return min((s.Next-r)/s.Step, total), total
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
		Name:     "FromSlice",
		Splits:   strideSplits,
		Progress: func(s *strideSplit) (int64, int64) { return strideProgress(s, n) },
		Read: func(s *strideSplit, budget int, emit func(T) error) (bool, error) {
			for ; budget > 0 && s.Next < n; budget-- {
				if err := emit(data[s.Next]); err != nil {
					return false, err
				}
				s.Next += s.Step
			}
			return s.Next >= n, nil
		},
		Fill: func(s *strideSplit, buf []T) (int, bool, error) {
			k := 0
			for ; k < len(buf) && s.Next < n; k++ {
				buf[k] = data[s.Next]
				s.Next += s.Step
			}
			return k, s.Next >= n, nil
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
	var progress func(s *strideSplit) (int64, int64)
	if bounded {
		progress = func(s *strideSplit) (int64, int64) { return strideProgress(s, g.Count) }
	}
	return FromSplits(env, SplitSource[T, strideSplit]{
		Name:          "Generator",
		Progress:      progress,
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
		Fill: func(s *strideSplit, buf []T) (int, bool, error) {
			k := 0
			for ; k < len(buf) && (!bounded || s.Next < g.Count); k++ {
				v, err := g.Fn(s.Next)
				if err != nil {
					return k, false, fmt.Errorf("generate element %d: %w", s.Next, err)
				}
				buf[k] = v
				s.Next += s.Step
			}
			return k, bounded && s.Next >= g.Count, nil
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
		return source.NewIter(seq, out.(op.Output[T])), nil
	})
}
