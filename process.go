package weir

import (
	"errors"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/keyedop"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// KeyedProcessFunction processes the elements of a keyed stream with keyed
// state and timers. It may also implement TimerFunction (to be called when
// its timers fire), KeyedOpener or Opener, Finisher and Closer.
type KeyedProcessFunction[K comparable, T, R any] interface {
	ProcessElement(ctx *KeyedContext[K, R], v T) error
}

// TimerFunction is called when a timer the function registered fires.
type TimerFunction[K comparable, R any] interface {
	OnTimer(ctx *KeyedContext[K, R], timestamp int64) error
}

// TimerService registers timers for the current key: the processing
// and event time now, and timers of either clock to register or delete.
type TimerService = keyedop.TimerService

// KeyedContext is what a process function sees of the element or timer at
// hand: its key (Key), timestamp (Timestamp), the clock that fired a timer
// (TimeDomain), the timer service (TimerService) and the outputs (Collect,
// CollectWithTimestamp, and Output for side outputs).
type KeyedContext[K comparable, R any] = keyedop.Context[K, R]

// SideOutputContext is a context that can emit to side outputs: a
// KeyedContext.
type SideOutputContext = keyedop.SideOutputContext

// OutputTag names a side output carrying elements of type S.
type OutputTag[S any] struct{ id string }

// NewOutputTag returns the tag with the given id; ids must be unique per
// program.
func NewOutputTag[S any](id string) OutputTag[S] { return OutputTag[S]{id: id} }

// ID returns the tag's id.
func (t OutputTag[S]) ID() string { return t.id }

// Output emits v to the side output tag, with the context's timestamp.
// Emitting to a tag that no stream consumes drops v.
func Output[S any](ctx SideOutputContext, tag OutputTag[S], v S) {
	keyedop.EmitSide(ctx, tag.id, v)
}

// SideOutput returns the side output tag of the operator that produced s.
// A side output carries the operator's watermarks as its main output does,
// so event time advances downstream of it, up to the final watermark of a
// bounded input.
func SideOutput[S, T any](s DataStream[T], tag OutputTag[S]) DataStream[S] {
	if !s.ok() {
		return invalid[S](s.env, errors.New("weir: SideOutput of an invalid stream"))
	}
	if tag.id == "" {
		return invalid[S](s.env, errors.New("weir: SideOutput: tag has no id"))
	}
	return derive[S](s.env, &graph.Transformation{
		Kind: graph.KindSideOutput, Name: "side:" + tag.id, Inputs: []*graph.Transformation{s.t},
		OutType: typeinfo.New[S](), SideTag: tag.id,
	})
}

// Process applies a keyed process function to every element.
func Process[K comparable, T, R any](ks KeyedStream[K, T], fn KeyedProcessFunction[K, T, R]) DataStream[R] {
	if err := checkFn(ks.DataStream, "Process", fn); err != nil {
		return invalid[R](ks.env, err)
	}
	acc := ks.env.accumulators
	return newKeyedOperator[K, T, R](ks, "KeyedProcess", func(out any) (any, error) {
		fn := instance(fn)
		return keyedop.NewProcess[K, T, R](fn, ks.key, ks.hash, keyedUDF[K]{udf{fn, acc}}, out.(op.Output[R])), nil
	})
}
