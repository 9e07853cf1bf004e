package source

import (
	"encoding/binary"
	"fmt"
	"iter"

	"github.com/weir-engine/weir/internal/op"
)

// NewIter returns the source operator of seq (parallelism 1), emitting to
// out.
func NewIter[T any](seq iter.Seq[T], out op.Output[T]) any {
	return &iterSource[T]{seq: seq, out: out}
}

const iterState = "emitted"

// iterSource emits the elements of an iterator; its checkpoint is how many
// it emitted, which a restored subtask skips.
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
	for n := 0; n < Batch; n++ {
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
