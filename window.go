package weir

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/keyedop"
)

// TimeWindow is the event-time interval [Start, End) in milliseconds.
type TimeWindow struct {
	Start, End int64
}

// MaxTimestamp is the last millisecond in the window; the window fires when
// the watermark reaches it.
func (w TimeWindow) MaxTimestamp() int64 { return w.End - 1 }

func (w TimeWindow) String() string { return fmt.Sprintf("[%d, %d)", w.Start, w.End) }

// WindowAssigner puts an element's timestamp into windows.
type WindowAssigner struct{ a keyedop.Assigner }

// TumblingEventTimeWindows are consecutive, non-overlapping windows of the
// given size, aligned to the epoch.
func TumblingEventTimeWindows(size time.Duration) WindowAssigner {
	return WindowAssigner{keyedop.Assigner{Size: size.Milliseconds(), Slide: size.Milliseconds()}}
}

// SlidingEventTimeWindows are windows of the given size starting every
// slide; an element belongs to size/slide of them.
func SlidingEventTimeWindows(size, slide time.Duration) WindowAssigner {
	return WindowAssigner{keyedop.Assigner{Size: size.Milliseconds(), Slide: slide.Milliseconds()}}
}

// WithOffset shifts the windows' alignment by offset.
func (a WindowAssigner) WithOffset(offset time.Duration) WindowAssigner {
	a.a.Offset = offset.Milliseconds()
	return a
}

// WindowedStream is a keyed stream cut into event-time windows.
type WindowedStream[K comparable, T any] struct {
	ks       KeyedStream[K, T]
	assigner WindowAssigner
	late     string
	// lateness, trigger and all: see windowing.go.
	lateness int64
	trigger  Trigger[T]
	evictor  Evictor[T]
	all      bool
}

// Window cuts each key's elements into windows.
func Window[K comparable, T any](ks KeyedStream[K, T], a WindowAssigner) WindowedStream[K, T] {
	if err := a.a.Validate(); err != nil {
		ks.DataStream = invalid[T](ks.env, err)
	}
	return WindowedStream[K, T]{ks: ks, assigner: a}
}

// SideOutputLateData sends elements that arrive after their windows fired
// to tag instead of dropping them.
func (ws WindowedStream[K, T]) SideOutputLateData(tag OutputTag[T]) WindowedStream[K, T] {
	ws.late = tag.id
	return ws
}

// AggregateFunction folds elements into an accumulator and turns it into a
// result. The accumulator lives in keyed state, which a checkpoint may
// still be writing after Add returns: Add must not change in place what an
// accumulator refers to (a pointer's target, a slice's elements, a map),
// but return a new accumulator; a plain struct is copied and is safe.
type AggregateFunction[T, A, R any] interface {
	CreateAccumulator() A
	Add(v T, acc A) (A, error)
	GetResult(acc A) (R, error)
}

// WindowReduce combines the elements of each key and window with f and
// emits one result per window when the watermark passes its end.
func WindowReduce[K comparable, T any](ws WindowedStream[K, T], f func(a, b T) (T, error)) DataStream[T] {
	if f == nil {
		return invalid[T](ws.ks.env, errors.New("weir: WindowReduce: nil function"))
	}
	fns := reduceFuncs[K, T, T](f)
	fns.Result = func(_ K, _ TimeWindow, acc reduceAcc[T]) (T, error) { return acc.V, nil }
	return newWindowOp(ws, "WindowReduce", staticFuncs(fns))
}

// staticFuncs builds fns, without hooks, for every subtask.
func staticFuncs[K comparable, T, A, O any](fns keyedop.WindowFuncs[K, T, A, O, TimeWindow]) func() (keyedop.WindowFuncs[K, T, A, O, TimeWindow], keyedop.Hooks[K]) {
	return func() (keyedop.WindowFuncs[K, T, A, O, TimeWindow], keyedop.Hooks[K]) { return fns, nil }
}

type reduceAcc[T any] struct {
	V   T
	Set bool
}

// WindowAggregate aggregates the elements of each key and window with agg.
func WindowAggregate[K comparable, T, A, R any](ws WindowedStream[K, T], agg AggregateFunction[T, A, R]) DataStream[R] {
	return WindowAggregateWith(ws, agg, func(_ K, _ TimeWindow, r R) (R, error) { return r, nil })
}

// WindowAggregateWith aggregates with agg and passes each result, with its
// key and window, through fn (Flink's aggregate with a window function).
func WindowAggregateWith[K comparable, T, A, R, O any](ws WindowedStream[K, T], agg AggregateFunction[T, A, R], fn func(key K, w TimeWindow, r R) (O, error)) DataStream[O] {
	if isNil(agg) || fn == nil {
		return invalid[O](ws.ks.env, errors.New("weir: WindowAggregate: nil function"))
	}
	fns := aggregateFuncs[K, O](agg)
	fns.Result = func(k K, w TimeWindow, acc A) (O, error) {
		r, err := agg.GetResult(acc)
		if err != nil {
			var zero O
			return zero, err
		}
		return fn(k, w, r)
	}
	return newWindowOp(ws, "WindowAggregate", staticFuncs(fns))
}

// newWindowOp records the window operator whose functions and hooks (nil:
// none) build returns, once per subtask.
func newWindowOp[K comparable, T, A, O any](ws WindowedStream[K, T], name string, build func() (keyedop.WindowFuncs[K, T, A, O, TimeWindow], keyedop.Hooks[K])) DataStream[O] {
	ks := ws.ks
	if !ks.ok() {
		return invalid[O](ks.env, fmt.Errorf("weir: %s on an invalid stream", name))
	}
	spec := keyedop.WindowSpec[K, T, TimeWindow]{Assigner: ws.assigner.a, Trigger: ws.trigger, AllowedLateness: ws.lateness,
		LateTag: ws.late, Key: ks.key, Hash: ks.hash}
	fns, _ := build()
	err := keyedop.ValidateWindow(spec, fns)
	if ws.evictor != nil {
		err = keyedop.ValidateWindow(spec, keyedop.Evicting(fns, ws.evictor))
	}
	if err != nil {
		return invalid[O](ks.env, fmt.Errorf("%w (%s)", err, name))
	}
	out := newKeyedOperator[K, T, O](ks, name, func(out any) (any, error) {
		fns, hooks := build()
		spec := spec
		spec.Hooks = hooks
		if ws.evictor != nil {
			return keyedop.NewWindow(spec, keyedop.Evicting(fns, ws.evictor), out.(op.Output[O])), nil
		}
		return keyedop.NewWindow(spec, fns, out.(op.Output[O])), nil
	})
	if ws.all {
		out = out.SetParallelism(1)
	}
	return out
}
