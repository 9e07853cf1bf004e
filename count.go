package weir

import (
	"context"
	"errors"
	"sync"

	"github.com/weir-engine/weir/internal/op"
)

// Count runs the program and returns the number of elements of s, counted
// in parallel (the FLIP-205 example's count()). Like Collect it is an
// execution of s's Env: it runs the other sinks added since the last one,
// and creates the caches it computes on the way.
func Count[T any](ctx context.Context, s DataStream[T]) (int64, error) {
	if !s.ok() {
		if s.env != nil && s.env.err != nil {
			return 0, s.env.err
		}
		return 0, errors.New("weir: Count of an invalid stream")
	}
	counts := &subtaskCounts{}
	sink := addSink(s, "Count", func(any) (any, error) { return &countSink[T]{counts: counts}, nil })
	s.env.onRerun(sink.s.t, counts.reset)
	if _, err := s.env.Execute(ctx, "count"); err != nil {
		return 0, err
	}
	return counts.sum(), nil
}

// subtaskCounts holds what each subtask of a Count sink counted, set when
// the subtask finished: a subtask that runs again replaces its count.
type subtaskCounts struct {
	mu sync.Mutex
	n  map[int]int64
}

func (c *subtaskCounts) set(subtask int, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = make(map[int]int64)
	}
	c.n[subtask] = n
}

func (c *subtaskCounts) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = nil
}

func (c *subtaskCounts) sum() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, v := range c.n {
		n += v
	}
	return n
}

// countSink counts the elements of one subtask.
type countSink[T any] struct {
	op.Base
	counts  *subtaskCounts
	subtask int
	n       int64
}

func (k *countSink[T]) Open(ctx *op.Context) error { k.subtask = ctx.SubtaskIndex; return nil }

func (k *countSink[T]) ProcessElement(int64, T) error { k.n++; return nil }

func (k *countSink[T]) Finish() error { k.counts.set(k.subtask, k.n); return nil }
