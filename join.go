package weir

import (
	"errors"
	"fmt"
)

// Join is the inner join of two keyed streams on their key, without a
// window: every element is kept in keyed state and joined, through f, with
// every element of the other stream with the same key, whether it came
// before or comes after. The state grows with the input; use it for
// bounded inputs or keys that stop arriving, or WindowJoin.
func Join[K comparable, A, B, R any](a KeyedStream[K, A], b KeyedStream[K, B], f func(A, B) (R, error)) DataStream[R] {
	if f == nil {
		return invalid[R](a.env, errors.New("weir: Join: nil function"))
	}
	return CoProcess(Connect(a, b), KeyedCoProcessFunction[K, A, B, R](&joinFn[K, A, B, R]{f: f})).Name("Join")
}

type joinFn[K comparable, A, B, R any] struct {
	f     func(A, B) (R, error)
	left  ListState[A]
	right ListState[B]
}

func (j *joinFn[K, A, B, R]) Open(rc *KeyedRuntimeContext[K]) error {
	var err error
	if j.left, err = GetListState[A](rc, "join-left"); err != nil {
		return err
	}
	j.right, err = GetListState[B](rc, "join-right")
	return err
}

func (j *joinFn[K, A, B, R]) ProcessElement1(ctx *KeyedContext[K, R], v A) error {
	j.left.Add(v)
	for _, w := range j.right.Get() {
		r, err := j.f(v, w)
		if err != nil {
			return err
		}
		ctx.Collect(r)
	}
	return nil
}

func (j *joinFn[K, A, B, R]) ProcessElement2(ctx *KeyedContext[K, R], w B) error {
	j.right.Add(w)
	for _, v := range j.left.Get() {
		r, err := j.f(v, w)
		if err != nil {
			return err
		}
		ctx.Collect(r)
	}
	return nil
}

// WindowJoin joins, through f, the elements of two keyed streams with the
// same key that fall into the same event-time window, when the watermark
// passes the window's end (Flink's window join). Both streams need event
// timestamps; elements of a window that already fired are dropped.
func WindowJoin[K comparable, A, B, R any](a KeyedStream[K, A], b KeyedStream[K, B], assigner WindowAssigner, f func(A, B) (R, error)) DataStream[R] {
	if f == nil {
		return invalid[R](a.env, errors.New("weir: WindowJoin: nil function"))
	}
	if err := assigner.validate(); err != nil {
		return invalid[R](a.env, err)
	}
	return CoProcess(Connect(a, b), KeyedCoProcessFunction[K, A, B, R](&windowJoinFn[K, A, B, R]{f: f, assigner: assigner})).Name("WindowJoin")
}

// windowJoinFn buffers both sides per window, keyed by the window's max
// timestamp (unique per window for a given assigner), and joins them when
// the event-time timer at that timestamp fires.
type windowJoinFn[K comparable, A, B, R any] struct {
	f        func(A, B) (R, error)
	assigner WindowAssigner
	left     MapState[int64, []A]
	right    MapState[int64, []B]
	windows  []TimeWindow
}

func (j *windowJoinFn[K, A, B, R]) Open(rc *KeyedRuntimeContext[K]) error {
	var err error
	if j.left, err = GetMapState[int64, []A](rc, "window-join-left"); err != nil {
		return err
	}
	j.right, err = GetMapState[int64, []B](rc, "window-join-right")
	return err
}

// windowsOf returns the windows of the element at hand that have not fired.
func (j *windowJoinFn[K, A, B, R]) windowsOf(ctx *KeyedContext[K, R]) ([]TimeWindow, error) {
	ts, ok := ctx.Timestamp()
	if !ok {
		return nil, fmt.Errorf("element has no event timestamp: assign timestamps and watermarks before a window join")
	}
	wm := ctx.TimerService().CurrentWatermark()
	j.windows = j.assigner.assign(j.windows[:0], ts)
	live := j.windows[:0]
	for _, w := range j.windows {
		if w.MaxTimestamp() > wm {
			live = append(live, w)
		}
	}
	return live, nil
}

func (j *windowJoinFn[K, A, B, R]) ProcessElement1(ctx *KeyedContext[K, R], v A) error {
	ws, err := j.windowsOf(ctx)
	if err != nil {
		return err
	}
	for _, w := range ws {
		end := w.MaxTimestamp()
		prev, _ := j.left.Get(end)
		j.left.Put(end, append(prev, v))
		ctx.TimerService().RegisterEventTimeTimer(end)
	}
	return nil
}

func (j *windowJoinFn[K, A, B, R]) ProcessElement2(ctx *KeyedContext[K, R], v B) error {
	ws, err := j.windowsOf(ctx)
	if err != nil {
		return err
	}
	for _, w := range ws {
		end := w.MaxTimestamp()
		prev, _ := j.right.Get(end)
		j.right.Put(end, append(prev, v))
		ctx.TimerService().RegisterEventTimeTimer(end)
	}
	return nil
}

func (j *windowJoinFn[K, A, B, R]) OnTimer(ctx *KeyedContext[K, R], end int64) error {
	ls, _ := j.left.Get(end)
	rs, _ := j.right.Get(end)
	j.left.Remove(end)
	j.right.Remove(end)
	for _, v := range ls {
		for _, w := range rs {
			r, err := j.f(v, w)
			if err != nil {
				return err
			}
			ctx.CollectWithTimestamp(r, end)
		}
	}
	return nil
}
