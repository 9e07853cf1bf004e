package weir

import (
	"errors"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/keyedop"
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
	return coOperator(cs, "KeyedCoProcess", fn, func(out op.Output[R]) any {
		fn := instance(fn)
		acc := cs.first.env.accumulators
		return keyedop.NewCoProcess[K, A, B, R](fn, cs.first.key, cs.second.key, cs.first.hash, keyedUDF[K]{udf{fn, acc}}, out)
	})
}

// coOperator records the two-input keyed operator that newOp builds for
// each subtask, after the checks of CoProcess; fn is the user function.
func coOperator[K comparable, A, B, R any](cs ConnectedStreams[K, A, B], name string, fn any, newOp func(out op.Output[R]) any) DataStream[R] {
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
	return derive[R](a.env, &graph.Transformation{
		Kind: graph.KindOperator, Name: name, Inputs: []*graph.Transformation{a.t, b.t},
		OutType: typeinfo.New[R](), Keyed: true, TwoInput: true,
		Factory: func(out any) (any, error) { return newOp(out.(op.Output[R])), nil },
	})
}
