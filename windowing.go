package weir

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/weir-engine/weir/internal/operator/keyedop"
)

// EventTimeSessionWindows are sessions of activity per key: an element at
// ts opens the window [ts, ts+gap), and windows that overlap or touch
// merge, so a session ends when no element came for gap (Flink's
// EventTimeSessionWindows). An aggregate over sessions must be a
// MergingAggregateFunction.
func EventTimeSessionWindows(gap time.Duration) WindowAssigner {
	return WindowAssigner{keyedop.Assigner{Session: true, Gap: gap.Milliseconds()}}
}

// ProcessingTimeSessionWindows are sessions on the wall clock: a session
// ends when the key had no element for gap of processing time.
func ProcessingTimeSessionWindows(gap time.Duration) WindowAssigner {
	return WindowAssigner{keyedop.Assigner{Session: true, Gap: gap.Milliseconds(), Processing: true}}
}

// TumblingProcessingTimeWindows are tumbling windows on the wall clock:
// an element goes to the window of the time it arrives, which fires when
// the clock passes its end. As in Flink, processing-time timers do not
// fire after the end of the input: windows still open then emit nothing.
func TumblingProcessingTimeWindows(size time.Duration) WindowAssigner {
	return WindowAssigner{keyedop.Assigner{Size: size.Milliseconds(), Slide: size.Milliseconds(), Processing: true}}
}

// SlidingProcessingTimeWindows are sliding windows on the wall clock.
func SlidingProcessingTimeWindows(size, slide time.Duration) WindowAssigner {
	return WindowAssigner{keyedop.Assigner{Size: size.Milliseconds(), Slide: slide.Milliseconds(), Processing: true}}
}

// GlobalWindows puts all elements of a key into one window that never
// ends: it fires only by a custom Trigger (Flink's GlobalWindows).
func GlobalWindows() WindowAssigner {
	return WindowAssigner{keyedop.Assigner{Global: true}}
}

// GlobalWindow is the one window of GlobalWindows.
var GlobalWindow = TimeWindow(keyedop.GlobalWindow)

// AllowedLateness keeps each event-time window for d after the watermark
// passed its end: an element that arrives within d fires the window again
// with all its contents (a late firing that updates the result); an
// element later than that is dropped, or sent to SideOutputLateData's tag
// (Flink's allowedLateness). The default is 0.
func (ws WindowedStream[K, T]) AllowedLateness(d time.Duration) WindowedStream[K, T] {
	ws.lateness = d.Milliseconds()
	return ws
}

// Trigger replaces the assigner's default trigger (Flink's trigger).
func (ws WindowedStream[K, T]) Trigger(t Trigger[T]) WindowedStream[K, T] {
	ws.trigger = t
	return ws
}

// CountWindows cuts each key's elements into windows of size elements
// (Flink's countWindow(size): GlobalWindows with a purging CountTrigger).
func CountWindows[K comparable, T any](ks KeyedStream[K, T], size int64) WindowedStream[K, T] {
	ws := Window(ks, GlobalWindows())
	if size < 1 {
		ws.ks.DataStream = invalid[T](ks.env, fmt.Errorf("weir: count window size %d must be at least 1", size))
	}
	return ws.Trigger(PurgingTrigger[T](CountTrigger[T](size)))
}

// WindowAll cuts the whole stream, not a key's, into windows, evaluated by
// one subtask (Flink's windowAll); the result is windowed as any
// WindowedStream is.
func WindowAll[T any](s DataStream[T], a WindowAssigner) WindowedStream[AllKey, T] {
	ws := Window(KeyBy(s, func(T) AllKey { return AllKey{} }), a)
	ws.all = true
	return ws
}

// AllKey is the one key of WindowAll's windows.
type AllKey struct{}

// MergingAggregateFunction is an AggregateFunction whose accumulators
// merge, as session windows need when two sessions become one (Flink's
// AggregateFunction.merge). Sliding event-time windows over one merge
// each element into one slice of the slide's length and combine the
// slices with Merge, oldest first, when a window fires. Like Add, Merge
// must not change a or b in place.
type MergingAggregateFunction[T, A, R any] interface {
	AggregateFunction[T, A, R]
	Merge(a, b A) (A, error)
}

// reduceFuncs folds with the reduce function f.
func reduceFuncs[K comparable, T, O any](f func(a, b T) (T, error)) keyedop.WindowFuncs[K, T, reduceAcc[T], O, TimeWindow] {
	return keyedop.WindowFuncs[K, T, reduceAcc[T], O, TimeWindow]{
		NewAcc: func() reduceAcc[T] { return reduceAcc[T]{} },
		Add: func(v T, acc reduceAcc[T]) (reduceAcc[T], error) {
			if !acc.Set {
				return reduceAcc[T]{V: v, Set: true}, nil
			}
			r, err := f(acc.V, v)
			return reduceAcc[T]{V: r, Set: true}, err
		},
		Merge: func(a, b reduceAcc[T]) (reduceAcc[T], error) {
			if !a.Set || !b.Set {
				if a.Set {
					return a, nil
				}
				return b, nil
			}
			r, err := f(a.V, b.V)
			return reduceAcc[T]{V: r, Set: true}, err
		},
	}
}

// aggregateFuncs folds with agg; its accumulators merge if it is a
// MergingAggregateFunction.
func aggregateFuncs[K comparable, O, T, A, R any](agg AggregateFunction[T, A, R]) keyedop.WindowFuncs[K, T, A, O, TimeWindow] {
	fns := keyedop.WindowFuncs[K, T, A, O, TimeWindow]{NewAcc: agg.CreateAccumulator, Add: agg.Add}
	if m, ok := agg.(MergingAggregateFunction[T, A, R]); ok {
		fns.Merge = m.Merge
		fns.MergeSlices = true
	}
	return fns
}

// ProcessWindowFunction is called for each firing of a window with all its
// elements, or with the one result of an incremental reduce or aggregate
// (WindowReduceProcess, WindowAggregateProcess); the context gives the
// key, the window, per-window state (GetWindowState) and the outputs
// (Collect, and Output for side outputs). Keyed state shared by all
// windows of a key (Flink's globalState) is registered in Open, if the
// function is a KeyedOpener. Flink's ProcessWindowFunction.
type ProcessWindowFunction[K comparable, T, O any] interface {
	Process(ctx *WindowContext[K, O], elements []T) error
}

// WindowContext is what a ProcessWindowFunction sees of the firing at
// hand: Key, Window, CurrentWatermark, CurrentProcessingTime and Collect,
// which emits with the window's max timestamp.
type WindowContext[K comparable, O any] = keyedop.WindowContext[K, O, TimeWindow]

// WindowProcess keeps all elements of each key and window and passes them
// to fn at each firing (Flink's process on a WindowedStream).
func WindowProcess[K comparable, T, O any](ws WindowedStream[K, T], fn ProcessWindowFunction[K, T, O]) DataStream[O] {
	if err := checkFn(ws.ks.DataStream, "WindowProcess", fn); err != nil {
		return invalid[O](ws.ks.env, err)
	}
	fns := keyedop.WindowFuncs[K, T, []T, O, TimeWindow]{
		NewAcc: func() []T { return nil },
		// Appending past the length never changes what a snapshot of
		// the shorter slice holds.
		Add:   func(v T, acc []T) ([]T, error) { return append(acc, v), nil },
		Merge: func(a, b []T) ([]T, error) { return slices.Concat(a, b), nil },
	}
	return newWindowProcess(ws, "WindowProcess", fns, fn, func(acc []T) ([]T, error) { return acc, nil })
}

// WindowReduceProcess reduces each window incrementally with f and passes
// the one result to fn at each firing (Flink's reduce with a
// ProcessWindowFunction): fn sees the key, the window and state, and the
// operator keeps one value per window instead of all elements.
func WindowReduceProcess[K comparable, T, O any](ws WindowedStream[K, T], f func(a, b T) (T, error), fn ProcessWindowFunction[K, T, O]) DataStream[O] {
	if f == nil {
		return invalid[O](ws.ks.env, errors.New("weir: WindowReduceProcess: nil reduce function"))
	}
	if err := checkFn(ws.ks.DataStream, "WindowReduceProcess", fn); err != nil {
		return invalid[O](ws.ks.env, err)
	}
	return newWindowProcess(ws, "WindowReduceProcess", reduceFuncs[K, T, O](f), fn,
		func(acc reduceAcc[T]) ([]T, error) { return []T{acc.V}, nil })
}

// WindowAggregateProcess aggregates each window incrementally with agg and
// passes the one result to fn at each firing (Flink's aggregate with a
// ProcessWindowFunction).
func WindowAggregateProcess[K comparable, T, A, R, O any](ws WindowedStream[K, T], agg AggregateFunction[T, A, R], fn ProcessWindowFunction[K, R, O]) DataStream[O] {
	if isNil(agg) {
		return invalid[O](ws.ks.env, errors.New("weir: WindowAggregateProcess: nil aggregate function"))
	}
	if err := checkFn(ws.ks.DataStream, "WindowAggregateProcess", fn); err != nil {
		return invalid[O](ws.ks.env, err)
	}
	return newWindowProcess(ws, "WindowAggregateProcess", aggregateFuncs[K, O](agg), fn, func(acc A) ([]R, error) {
		r, err := agg.GetResult(acc)
		return []R{r}, err
	})
}

// newWindowProcess records a window operator that fires, on each subtask,
// its own instance of fn with elements(acc).
func newWindowProcess[K comparable, T, A, E, O any](ws WindowedStream[K, T], name string, fns keyedop.WindowFuncs[K, T, A, O, TimeWindow],
	fn ProcessWindowFunction[K, E, O], elements func(A) ([]E, error)) DataStream[O] {
	acc := ws.ks.env.accumulators
	return newWindowOp(ws, name, func() (keyedop.WindowFuncs[K, T, A, O, TimeWindow], keyedop.Hooks[K]) {
		f := instance(fn)
		fns := fns
		fns.Process = func(ctx *WindowContext[K, O], a A) error {
			es, err := elements(a)
			if err != nil {
				return err
			}
			return f.Process(ctx, es)
		}
		return fns, keyedUDF[K]{udf{f, acc}}
	})
}

// GetWindowState returns the per-window value state called name of the
// window at hand: a ProcessWindowFunction's context or a trigger's. It is
// removed with the window, when the window is past the allowed lateness
// (Flink's windowState). Merging (session) windows have none, as in
// Flink.
func GetWindowState[V any](ctx keyedop.WindowStateHolder[TimeWindow], name string) (ValueState[V], error) {
	st := keyedop.WindowValue[V](ctx, name)
	if err := st.Err(); err != nil {
		return nil, fmt.Errorf("weir: %w", err)
	}
	return st, nil
}
