package keyedop

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
	"github.com/weir-engine/weir/internal/state/keyed"
)

// The state names of the two window paths: the per-window path's
// accumulators, and the sliced path's for sliding windows (tumbling
// windows keep theirs under contentsState on both paths).
const (
	contentsState = "window-contents"
	slicesState   = "window-slices"
)

// windowPath is one way of running a window operator on the operator's
// runtime: per window (windowOp) or sliced (slicedWindowOp).
type windowPath[T any] interface {
	// open registers the path's state and timer callback, once the
	// runtime's state is open and restored.
	open(ctx *op.Context) error
	// process adds v, whose key is in key group group (-1: to be
	// computed), to its windows.
	process(ts int64, group int, v T) error
}

// windowOperator is the window operator. It opens the keyed state first
// and chooses the path once the restored state is known: sliced where the
// window slices, unless the restored state holds windows of the per-window
// path (a checkpoint or savepoint taken before slicing, or by a subtask
// that held such windows): their accumulators cannot be cut into slices,
// so this run keeps every window, and the next restore without such
// windows slices. State of the sliced path restored where the window does
// not slice is an error naming the operator; nothing is dropped.
type windowOperator[K comparable, T, A, O any, W WindowType] struct {
	*keyed.Runtime[K, W]
	spec WindowSpec[K, T, W]
	fns  WindowFuncs[K, T, A, O, W]
	out  op.Output[O]
	// slices says the window may run sliced (sliceable).
	slices bool
	path   windowPath[T]
}

func newWindowOperator[K comparable, T, A, O any, W WindowType](spec WindowSpec[K, T, W], fns WindowFuncs[K, T, A, O, W], out op.Output[O], slices bool) *windowOperator[K, T, A, O, W] {
	w := &windowOperator[K, T, A, O, W]{Runtime: new(keyed.Runtime[K, W]), spec: spec, fns: fns, out: out, slices: slices}
	w.SetHash(spec.Hash)
	return w
}

// Open opens and restores the keyed state, chooses the path and opens the
// user function.
func (w *windowOperator[K, T, A, O, W]) Open(ctx *op.Context) error {
	if err := w.OpenState(ctx); err != nil {
		return err
	}
	err := w.choose(ctx)
	if err != nil {
		err = fmt.Errorf("window operator %q: %w", ctx.UID, err)
	} else {
		err = w.path.open(ctx)
	}
	if err == nil && w.spec.Hooks != nil {
		err = w.spec.Hooks.Open(ctx, w.Backend())
	}
	if err != nil {
		// Close is not called after a failed Open.
		return errors.Join(err, w.CloseState())
	}
	return nil
}

// choose sets w.path from w.slices and the restored state.
func (w *windowOperator[K, T, A, O, W]) choose(ctx *op.Context) error {
	sliced := w.slices
	if a := w.spec.Assigner; ctx.Restored != nil && a.EventTime() && !a.Merging() && a.Size != a.Slide {
		// Sliding event-time windows: the paths keep their
		// accumulators under different names.
		perWindow, err := w.holds(contentsState)
		if err != nil {
			return err
		}
		slicedState, err := w.holds(slicesState)
		if err != nil {
			return err
		}
		switch {
		case slicedState && (!sliced || perWindow):
			return fmt.Errorf("the restored state holds sliding windows kept as slices (an aggregate whose merge combines slices)%s; "+
				"restore with a program whose window aggregates the same way, at the parallelism of the checkpoint, "+
				"or from a savepoint taken when no window was open", w.conflict(perWindow))
		case sliced && perWindow:
			slog.Info("window operator restored with windows kept per window: this run keeps every window, the next restore without such windows slices",
				"operator", ctx.UID, "subtask", ctx.SubtaskIndex)
			sliced = false
		}
	}
	if sliced {
		w.path = newSlicedWindow(w.spec, w.fns, w.out, w.Runtime)
	} else {
		w.path = newPerWindow(w.spec, w.fns, w.out, w.Runtime)
	}
	return nil
}

// conflict says why restored slices cannot run.
func (w *windowOperator[K, T, A, O, W]) conflict(perWindow bool) string {
	if perWindow {
		return " together with windows kept per window (subtasks of an upgrade that chose differently, merged by a rescale)"
	}
	return ", and this window does not slice (a process function, evictor, custom trigger, or an aggregate without a merge declared for slices)"
}

// holds reports whether restored state name (a map by window of
// accumulators) holds an entry of any key.
func (w *windowOperator[K, T, A, O, W]) holds(name string) (bool, error) {
	b := w.Backend()
	if _, err := state.Map[K, W, A](b, name); err != nil {
		return false, fmt.Errorf("restore state %q: %w", name, err)
	}
	start, end := b.KeyGroupRange()
	for kg := start; kg <= end; kg++ {
		for range b.Keys(name, kg) {
			return true, nil
		}
	}
	return false, nil
}

// ProcessElement adds v to its windows on the chosen path.
func (w *windowOperator[K, T, A, O, W]) ProcessElement(ts int64, v T) error {
	return w.path.process(ts, -1, v)
}

// CollectBatch implements op.BatchInput.
func (w *windowOperator[K, T, A, O, W]) CollectBatch(ts []int64, vs []T) error {
	for i := range vs {
		if err := w.path.process(op.TimestampAt(ts, i), -1, vs[i]); err != nil {
			return err
		}
	}
	return nil
}

// CollectKeyedBatch implements op.KeyedBatchInput.
func (w *windowOperator[K, T, A, O, W]) CollectKeyedBatch(ts []int64, groups []uint16, vs []T) error {
	for i := range vs {
		if err := w.path.process(op.TimestampAt(ts, i), int(groups[i]), vs[i]); err != nil {
			return err
		}
	}
	return nil
}

// ProcessWatermark fires the windows that end by wm, and forwards it.
func (w *windowOperator[K, T, A, O, W]) ProcessWatermark(wm int64) error {
	if err := w.AdvanceWatermark(wm); err != nil {
		return err
	}
	return w.out.EmitWatermark(wm)
}

// Finish finishes the user function.
func (w *windowOperator[K, T, A, O, W]) Finish() error {
	if w.spec.Hooks != nil {
		return w.spec.Hooks.Finish()
	}
	return nil
}

// Close closes the user function and releases the state.
func (w *windowOperator[K, T, A, O, W]) Close() error {
	var err error
	if w.spec.Hooks != nil {
		err = w.spec.Hooks.Close()
	}
	return errors.Join(err, w.CloseState())
}
