package keyedop

import (
	"errors"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
)

// The joins are co-process functions of this package, so that each is the
// co-process operator with a function that is its own Hooks.

// noLifecycle is the Finish and Close of a function without them.
type noLifecycle struct{}

func (noLifecycle) Finish() error { return nil }
func (noLifecycle) Close() error  { return nil }

// NewJoin returns the operator of the inner join of two keyed inputs on
// their key, without a window: every element is kept in keyed state and
// joined, through f, with every element of the other input with the same
// key, whether it came before or comes after.
func NewJoin[K comparable, A, B, R any](f func(A, B) (R, error), keyA func(A) K, keyB func(B) K, hash func(K) uint32, out op.Output[R]) any {
	j := &joinFn[K, A, B, R]{f: f}
	return NewCoProcess[K, A, B, R](j, keyA, keyB, hash, j, out)
}

type joinFn[K comparable, A, B, R any] struct {
	noLifecycle
	f     func(A, B) (R, error)
	left  *state.ListState[K, A]
	right *state.ListState[K, B]
}

func (j *joinFn[K, A, B, R]) Open(_ *op.Context, b *state.KeyedBackend[K]) error {
	var err error
	if j.left, err = state.List[K, A](b, "join-left"); err != nil {
		return err
	}
	j.right, err = state.List[K, B](b, "join-right")
	return err
}

func (j *joinFn[K, A, B, R]) ProcessElement1(ctx *Context[K, R], v A) error {
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

func (j *joinFn[K, A, B, R]) ProcessElement2(ctx *Context[K, R], w B) error {
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

// NewWindowJoin returns the operator that joins, through f, the elements
// of two keyed inputs with the same key that fall into the same event-time
// window of assigner, when the watermark passes the window's end (Flink's
// window join). Elements of a window that already fired are dropped.
func NewWindowJoin[K comparable, A, B, R any](f func(A, B) (R, error), assigner Assigner, keyA func(A) K, keyB func(B) K, hash func(K) uint32, out op.Output[R]) any {
	cross := func(ctx *Context[K, R], w Window, ls []A, rs []B) error {
		for _, v := range ls {
			for _, u := range rs {
				r, err := f(v, u)
				if err != nil {
					return err
				}
				ctx.CollectWithTimestamp(r, MaxTimestamp(w))
			}
		}
		return nil
	}
	j := &windowJoinFn[K, A, B, R]{fire: cross, assigner: assigner}
	return NewCoProcess[K, A, B, R](j, keyA, keyB, hash, j, out)
}

// NewWindowCoGroup returns the operator that hands f, for every key and
// event-time window of assigner in which either input has elements, the
// elements of both inputs with that key in that window, when the
// watermark passes the window's end (Flink's window coGroup). f emits
// through the Context, with the window's max timestamp by default.
func NewWindowCoGroup[K comparable, A, B, R any](f func(ctx *Context[K, R], w Window, as []A, bs []B) error, assigner Assigner, keyA func(A) K, keyB func(B) K, hash func(K) uint32, out op.Output[R]) any {
	j := &windowJoinFn[K, A, B, R]{fire: f, assigner: assigner}
	return NewCoProcess[K, A, B, R](j, keyA, keyB, hash, j, out)
}

// windowJoinFn buffers both sides per window, keyed by the window's max
// timestamp (unique per window for a given assigner), and hands them to
// fire when the event-time timer at that timestamp fires: the window join
// and the window coGroup.
type windowJoinFn[K comparable, A, B, R any] struct {
	noLifecycle
	fire     func(ctx *Context[K, R], w Window, ls []A, rs []B) error
	assigner Assigner
	left     *state.MapState[K, int64, []A]
	right    *state.MapState[K, int64, []B]
	windows  []Window
}

func (j *windowJoinFn[K, A, B, R]) Open(_ *op.Context, b *state.KeyedBackend[K]) error {
	var err error
	if j.left, err = state.Map[K, int64, []A](b, "window-join-left"); err != nil {
		return err
	}
	j.right, err = state.Map[K, int64, []B](b, "window-join-right")
	return err
}

// windowsOf returns the windows of the element at hand that have not fired.
func (j *windowJoinFn[K, A, B, R]) windowsOf(ctx *Context[K, R]) ([]Window, error) {
	ts, ok := ctx.Timestamp()
	if !ok {
		return nil, errors.New("element has no event timestamp: assign timestamps and watermarks before a window join")
	}
	wm := ctx.TimerService().CurrentWatermark()
	j.windows = Assign(j.assigner, j.windows[:0], ts)
	live := j.windows[:0]
	for _, w := range j.windows {
		if MaxTimestamp(w) > wm {
			live = append(live, w)
		}
	}
	return live, nil
}

func (j *windowJoinFn[K, A, B, R]) ProcessElement1(ctx *Context[K, R], v A) error {
	ws, err := j.windowsOf(ctx)
	if err != nil {
		return err
	}
	for _, w := range ws {
		end := MaxTimestamp(w)
		prev, _ := j.left.Get(end)
		j.left.Put(end, append(prev, v))
		ctx.TimerService().RegisterEventTimeTimer(end)
	}
	return nil
}

func (j *windowJoinFn[K, A, B, R]) ProcessElement2(ctx *Context[K, R], v B) error {
	ws, err := j.windowsOf(ctx)
	if err != nil {
		return err
	}
	for _, w := range ws {
		end := MaxTimestamp(w)
		prev, _ := j.right.Get(end)
		j.right.Put(end, append(prev, v))
		ctx.TimerService().RegisterEventTimeTimer(end)
	}
	return nil
}

func (j *windowJoinFn[K, A, B, R]) OnTimer(ctx *Context[K, R], end int64) error {
	ls, _ := j.left.Get(end)
	rs, _ := j.right.Get(end)
	j.left.Remove(end)
	j.right.Remove(end)
	return j.fire(ctx, Window{Start: end + 1 - j.assigner.Size, End: end + 1}, ls, rs)
}
