package weir

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
	"github.com/weir-engine/weir/internal/state/keyed"
	"github.com/weir-engine/weir/internal/timer"
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
type WindowAssigner struct {
	size, slide, offset int64
}

// TumblingEventTimeWindows are consecutive, non-overlapping windows of the
// given size, aligned to the epoch.
func TumblingEventTimeWindows(size time.Duration) WindowAssigner {
	return WindowAssigner{size: size.Milliseconds(), slide: size.Milliseconds()}
}

// SlidingEventTimeWindows are windows of the given size starting every
// slide; an element belongs to size/slide of them.
func SlidingEventTimeWindows(size, slide time.Duration) WindowAssigner {
	return WindowAssigner{size: size.Milliseconds(), slide: slide.Milliseconds()}
}

// WithOffset shifts the windows' alignment by offset.
func (a WindowAssigner) WithOffset(offset time.Duration) WindowAssigner {
	a.offset = offset.Milliseconds()
	return a
}

func (a WindowAssigner) validate() error {
	switch {
	case a.size <= 0 || a.slide <= 0:
		return fmt.Errorf("weir: window size %dms and slide %dms must be at least 1ms", a.size, a.slide)
	case a.slide > a.size:
		return fmt.Errorf("weir: window slide %dms is larger than its size %dms", a.slide, a.size)
	}
	return nil
}

// assign appends the windows containing ts to dst, latest first.
func (a WindowAssigner) assign(dst []TimeWindow, ts int64) []TimeWindow {
	last := ts - floorMod(ts-a.offset, a.slide)
	for start := last; start > ts-a.size; start -= a.slide {
		dst = append(dst, TimeWindow{Start: start, End: start + a.size})
	}
	return dst
}

func floorMod(x, m int64) int64 {
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}

// WindowedStream is a keyed stream cut into event-time windows.
type WindowedStream[K comparable, T any] struct {
	ks       KeyedStream[K, T]
	assigner WindowAssigner
	late     string
}

// Window cuts each key's elements into windows.
func Window[K comparable, T any](ks KeyedStream[K, T], a WindowAssigner) WindowedStream[K, T] {
	if err := a.validate(); err != nil {
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
	return newWindowOp(ws, "WindowReduce", windowFuncs[K, T, reduceAcc[T], T]{
		newAcc: func() reduceAcc[T] { return reduceAcc[T]{} },
		add: func(v T, acc reduceAcc[T]) (reduceAcc[T], error) {
			if !acc.Set {
				return reduceAcc[T]{V: v, Set: true}, nil
			}
			r, err := f(acc.V, v)
			return reduceAcc[T]{V: r, Set: true}, err
		},
		result: func(_ K, _ TimeWindow, acc reduceAcc[T]) (T, error) { return acc.V, nil },
	})
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
	return newWindowOp(ws, "WindowAggregate", windowFuncs[K, T, A, O]{
		newAcc: agg.CreateAccumulator,
		add:    agg.Add,
		result: func(k K, w TimeWindow, acc A) (O, error) {
			r, err := agg.GetResult(acc)
			if err != nil {
				var zero O
				return zero, err
			}
			return fn(k, w, r)
		},
	})
}

type windowFuncs[K comparable, T, A, O any] struct {
	newAcc func() A
	add    func(v T, acc A) (A, error)
	result func(k K, w TimeWindow, acc A) (O, error)
}

func newWindowOp[K comparable, T, A, O any](ws WindowedStream[K, T], name string, fns windowFuncs[K, T, A, O]) DataStream[O] {
	ks := ws.ks
	if !ks.ok() {
		return invalid[O](ks.env, fmt.Errorf("weir: %s on an invalid stream", name))
	}
	return newKeyedOperator[K, T, O](ks, name, func(out any) (any, error) {
		w := &windowOp[K, T, A, O]{fns: fns, assigner: ws.assigner, lateTag: ws.late, key: ks.key, out: out.(op.Output[O])}
		w.SetHash(ks.hash)
		return w, nil
	})
}

// windowOp keeps one accumulator per key and window in keyed map state and
// an event-time timer per key and window at the window's max timestamp.
type windowOp[K comparable, T, A, O any] struct {
	op.Base
	keyed.Runtime[K, TimeWindow]
	fns      windowFuncs[K, T, A, O]
	assigner WindowAssigner
	lateTag  string
	late     op.Output[T]
	key      func(T) K
	out      op.Output[O]
	contents *state.MapState[K, TimeWindow, A]
	windows  []TimeWindow
}

func (w *windowOp[K, T, A, O]) Open(ctx *op.Context) error {
	if err := w.OpenState(ctx); err != nil {
		return err
	}
	var err error
	if w.contents, err = state.Map[K, TimeWindow, A](w.Backend(), "window-contents"); err != nil {
		return err
	}
	if w.lateTag != "" {
		w.late, _ = ctx.SideOutputs[w.lateTag].(op.Output[T])
	}
	w.SetOnTimer(w.fire)
	return nil
}

// Close releases the state.
func (w *windowOp[K, T, A, O]) Close() error { return w.CloseState() }

func (w *windowOp[K, T, A, O]) ProcessElement(ts int64, v T) error {
	if ts == op.NoTimestamp {
		return errors.New("element has no event timestamp: assign timestamps and watermarks before windows")
	}
	k := w.key(v)
	w.SetKey(k)
	wm := w.Timers().CurrentWatermark()
	w.windows = w.assigner.assign(w.windows[:0], ts)
	late := true
	for _, win := range w.windows {
		if win.MaxTimestamp() <= wm {
			continue
		}
		late = false
		acc, existed := w.contents.Get(win)
		if !existed {
			acc = w.fns.newAcc()
		}
		acc, err := w.fns.add(v, acc)
		if err != nil {
			return err
		}
		w.contents.Put(win, acc)
		if !existed {
			// A window with contents has its timer already: registering
			// it once saves a deduplicating map lookup per element.
			w.Timers().RegisterEventTimeTimer(k, win, win.MaxTimestamp())
		}
	}
	if late && w.late != nil {
		if err := w.late.Collect(ts, v); err != nil {
			return err
		}
	}
	return w.Backend().Err()
}

func (w *windowOp[K, T, A, O]) fire(t timer.Timer[K, TimeWindow], _ TimeDomain) error {
	acc, ok := w.contents.Get(t.Namespace)
	if !ok {
		return nil
	}
	w.contents.Remove(t.Namespace)
	r, err := w.fns.result(t.Key, t.Namespace, acc)
	if err != nil {
		return err
	}
	return w.out.Collect(t.Namespace.MaxTimestamp(), r)
}

func (w *windowOp[K, T, A, O]) ProcessWatermark(wm int64) error {
	if err := w.AdvanceWatermark(wm); err != nil {
		return err
	}
	return w.out.EmitWatermark(wm)
}
