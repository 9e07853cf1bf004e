package opstate

import (
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
)

// ListState is a list of V kept by one subtask. Mode Split (Flink's
// ListState) deals its entries out over the subtasks of a restore at
// another parallelism; mode Union (UnionListState) gives every subtask of
// a restore the entries of all.
type ListState[V any] struct {
	vs []V
}

// List returns the list state called name in mode (op.SplitList or
// op.UnionList), with the entries restored to this subtask.
func List[V any](s *Store, name string, mode op.ListMode) (*ListState[V], error) {
	if mode != op.SplitList && mode != op.UnionList {
		return nil, fmt.Errorf("%w: %q: a list state is split or union", ErrState, name)
	}
	c, err := codec.For[V]()
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrState, name, err)
	}
	return register(s, name, mode, func(entries [][]byte) (*ListState[V], func() ([][]byte, error), error) {
		l := &ListState[V]{}
		for i, e := range entries {
			v, n, err := c.Decode(e)
			if err != nil {
				return nil, nil, fmt.Errorf("entry %d: %w", i, err)
			}
			if n != len(e) {
				return nil, nil, fmt.Errorf("entry %d: %d bytes after the value: %w", i, len(e)-n, codec.ErrCorrupt)
			}
			l.vs = append(l.vs, v)
		}
		encode := func() ([][]byte, error) {
			out := make([][]byte, len(l.vs))
			for i, v := range l.vs {
				out[i] = c.Append(nil, v)
			}
			return out, nil
		}
		return l, encode, nil
	})
}

// Get returns the list; it is a read-only view valid until the next write.
func (l *ListState[V]) Get() []V { return l.vs }

// Add appends v.
func (l *ListState[V]) Add(v V) { l.vs = append(l.vs, v) }

// AddAll appends vs.
func (l *ListState[V]) AddAll(vs []V) { l.vs = append(l.vs, vs...) }

// Update replaces the list with a copy of vs.
func (l *ListState[V]) Update(vs []V) { l.vs = slices.Clone(vs) }

// Clear empties the list.
func (l *ListState[V]) Clear() { l.vs = nil }
