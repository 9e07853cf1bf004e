package keyedop

import (
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state/keyed"
)

// CoProcessFunction processes the elements of two connected keyed streams
// (package weir's KeyedCoProcessFunction).
type CoProcessFunction[K comparable, A, B, R any] interface {
	ProcessElement1(ctx *Context[K, R], v A) error
	ProcessElement2(ctx *Context[K, R], v B) error
}

// NewCoProcess returns the co-process operator of fn: the elements of
// input 0 are keyed by keyA, those of input 1 by keyB, and both share the
// keyed state, the timers and the Context.
func NewCoProcess[K comparable, A, B, R any](fn CoProcessFunction[K, A, B, R], keyA func(A) K, keyB func(B) K, hash func(K) uint32, hooks Hooks[K], out op.Output[R]) any {
	p := newProcessOp[K, R](fn, hash, hooks, out)
	return &coProcessOp[K, A, B, R]{
		processOp: p,
		first:     &coInput[K, A, R]{p: p, key: keyA, process: fn.ProcessElement1},
		second:    &coInput[K, B, R]{p: p, key: keyB, process: fn.ProcessElement2},
	}
}

// coProcessOp is a keyed process operator with two inputs; both share the
// processOp's state, timers and context.
type coProcessOp[K comparable, A, B, R any] struct {
	*processOp[K, R]
	first  *coInput[K, A, R]
	second *coInput[K, B, R]
}

// ProcessElement is input 0.
func (c *coProcessOp[K, A, B, R]) ProcessElement(ts int64, v A) error {
	return c.first.ProcessElement(ts, v)
}

// InputAt implements op.MultiInput.
func (c *coProcessOp[K, A, B, R]) InputAt(i int) any {
	if i == 0 {
		return c.first
	}
	return c.second
}

// coInput feeds one input's elements to the shared process operator.
type coInput[K comparable, T, R any] struct {
	p       *processOp[K, R]
	key     func(T) K
	process func(ctx *Context[K, R], v T) error
}

func (in *coInput[K, T, R]) ProcessElement(ts int64, v T) error {
	return in.processIn(ts, -1, v)
}

// CollectBatch implements op.BatchInput.
func (in *coInput[K, T, R]) CollectBatch(ts []int64, vs []T) error {
	for i := range vs {
		if err := in.processIn(op.TimestampAt(ts, i), -1, vs[i]); err != nil {
			return err
		}
	}
	return nil
}

// CollectKeyedBatch implements op.KeyedBatchInput.
func (in *coInput[K, T, R]) CollectKeyedBatch(ts []int64, groups []uint16, vs []T) error {
	for i := range vs {
		if err := in.processIn(op.TimestampAt(ts, i), int(groups[i]), vs[i]); err != nil {
			return err
		}
	}
	return nil
}

// processIn processes v, whose key is in key group group (-1: to be
// computed).
func (in *coInput[K, T, R]) processIn(ts int64, group int, v T) error {
	p := in.p
	p.SetKeyInGroup(in.key(v), group)
	p.kctx.ts, p.kctx.domain = ts, keyed.EventTime
	if err := in.process(&p.kctx, v); err != nil {
		return err
	}
	if err := p.kctx.takeErr(); err != nil {
		return err
	}
	return p.Backend().Err()
}
