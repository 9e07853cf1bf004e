package weir

import (
	"errors"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// ConnectedStreams are two keyed streams with the same key type, processed
// together by one operator that sees both and shares keyed state and
// timers between them: the basis of joins.
type ConnectedStreams[K comparable, A, B any] struct {
	first  KeyedStream[K, A]
	second KeyedStream[K, B]
}

// Connect connects two keyed streams. Elements of both with the same key
// go to the same subtask of the next operator.
func Connect[K comparable, A, B any](first KeyedStream[K, A], second KeyedStream[K, B]) ConnectedStreams[K, A, B] {
	return ConnectedStreams[K, A, B]{first: first, second: second}
}

// KeyedCoProcessFunction processes the elements of two connected keyed
// streams with keyed state and timers shared by both. It may also
// implement TimerFunction, KeyedOpener or Opener, Finisher and Closer.
type KeyedCoProcessFunction[K comparable, A, B, R any] interface {
	ProcessElement1(ctx *KeyedContext[K, R], v A) error
	ProcessElement2(ctx *KeyedContext[K, R], v B) error
}

// CoProcess applies fn to the elements of both streams.
func CoProcess[K comparable, A, B, R any](cs ConnectedStreams[K, A, B], fn KeyedCoProcessFunction[K, A, B, R]) DataStream[R] {
	a, b := cs.first, cs.second
	switch {
	case !a.ok() || !b.ok():
		return invalid[R](a.env, errors.New("weir: CoProcess on an invalid stream"))
	case a.env != b.env:
		a.env.fail(errors.New("weir: CoProcess of streams from different programs"))
		return DataStream[R]{env: a.env}
	}
	if err := checkFn(a.DataStream, "CoProcess", fn); err != nil {
		return invalid[R](a.env, err)
	}
	acc := a.env.accumulators
	return derive[R](a.env, &graph.Transformation{
		Kind: graph.KindOperator, Name: "KeyedCoProcess", Inputs: []*graph.Transformation{a.t, b.t},
		OutType: typeinfo.New[R](), Keyed: true, TwoInput: true,
		Factory: func(out any) (any, error) {
			fn := instance(fn)
			p := &processOp[K, R]{out: out.(op.Output[R]), fn: fn, acc: acc}
			p.SetHash(a.hash)
			return &coProcessOp[K, A, B, R]{
				processOp: p,
				first:     &coInput[K, A, R]{p: p, key: a.key, process: fn.ProcessElement1},
				second:    &coInput[K, B, R]{p: p, key: b.key, process: fn.ProcessElement2},
			}, nil
		},
	})
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
	process func(ctx *KeyedContext[K, R], v T) error
}

func (in *coInput[K, T, R]) ProcessElement(ts int64, v T) error {
	p := in.p
	p.SetKey(in.key(v))
	p.kctx.ts, p.kctx.domain = ts, EventTime
	if err := in.process(&p.kctx, v); err != nil {
		return err
	}
	if err := p.kctx.takeErr(); err != nil {
		return err
	}
	return p.Backend().Err()
}
