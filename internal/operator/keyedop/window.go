package keyedop

import (
	"errors"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
	"github.com/weir-engine/weir/internal/state/keyed"
	"github.com/weir-engine/weir/internal/timer"
)

// WindowFuncs fold the elements of a key and window into an accumulator
// of type A and turn it into the window's result.
type WindowFuncs[K comparable, T, A, O any, W WindowType] struct {
	NewAcc func() A
	Add    func(v T, acc A) (A, error)
	Result func(k K, w W, acc A) (O, error)
}

// WindowSpec is what a window operator needs besides its functions.
type WindowSpec[K comparable, T any] struct {
	Assigner Assigner
	// LateTag is the side output of elements whose windows all fired
	// ("": they are dropped).
	LateTag string
	Key     func(T) K
	Hash    func(K) uint32
}

// NewWindow returns the window operator of fns, emitting to out.
func NewWindow[K comparable, T, A, O any, W WindowType](spec WindowSpec[K, T], fns WindowFuncs[K, T, A, O, W], out op.Output[O]) any {
	w := &windowOp[K, T, A, O, W]{fns: fns, assigner: spec.Assigner, lateTag: spec.LateTag, key: spec.Key, out: out}
	w.SetHash(spec.Hash)
	return w
}

// windowOp keeps one accumulator per key and window in keyed map state and
// an event-time timer per key and window at the window's max timestamp.
type windowOp[K comparable, T, A, O any, W WindowType] struct {
	op.Base
	keyed.Runtime[K, W]
	fns      WindowFuncs[K, T, A, O, W]
	assigner Assigner
	lateTag  string
	late     op.Output[T]
	key      func(T) K
	out      op.Output[O]
	contents *state.MapState[K, W, A]
	windows  []W
}

func (w *windowOp[K, T, A, O, W]) Open(ctx *op.Context) error {
	if err := w.OpenState(ctx); err != nil {
		return err
	}
	var err error
	if w.contents, err = state.Map[K, W, A](w.Backend(), "window-contents"); err != nil {
		return err
	}
	if w.lateTag != "" {
		w.late, _ = ctx.SideOutputs[w.lateTag].(op.Output[T])
	}
	w.SetOnTimer(w.fire)
	return nil
}

// Close releases the state.
func (w *windowOp[K, T, A, O, W]) Close() error { return w.CloseState() }

func (w *windowOp[K, T, A, O, W]) ProcessElement(ts int64, v T) error {
	if ts == op.NoTimestamp {
		return errors.New("element has no event timestamp: assign timestamps and watermarks before windows")
	}
	k := w.key(v)
	w.SetKey(k)
	wm := w.Timers().CurrentWatermark()
	w.windows = Assign(w.assigner, w.windows[:0], ts)
	late := true
	for _, win := range w.windows {
		end := MaxTimestamp(win)
		if end <= wm {
			continue
		}
		late = false
		acc, existed := w.contents.Get(win)
		if !existed {
			acc = w.fns.NewAcc()
		}
		acc, err := w.fns.Add(v, acc)
		if err != nil {
			return err
		}
		w.contents.Put(win, acc)
		if !existed {
			// A window with contents has its timer already: registering
			// it once saves a deduplicating map lookup per element.
			w.Timers().RegisterEventTimeTimer(k, win, end)
		}
	}
	if late && w.late != nil {
		if err := w.late.Collect(ts, v); err != nil {
			return err
		}
	}
	return w.Backend().Err()
}

func (w *windowOp[K, T, A, O, W]) fire(t timer.Timer[K, W], _ keyed.TimeDomain) error {
	acc, ok := w.contents.Get(t.Namespace)
	if !ok {
		return nil
	}
	w.contents.Remove(t.Namespace)
	r, err := w.fns.Result(t.Key, t.Namespace, acc)
	if err != nil {
		return err
	}
	return w.out.Collect(MaxTimestamp(t.Namespace), r)
}

func (w *windowOp[K, T, A, O, W]) ProcessWatermark(wm int64) error {
	if err := w.AdvanceWatermark(wm); err != nil {
		return err
	}
	return w.out.EmitWatermark(wm)
}
