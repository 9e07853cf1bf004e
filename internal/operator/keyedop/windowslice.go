package keyedop

import (
	"errors"
	"math"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
	"github.com/weir-engine/weir/internal/state/keyed"
	"github.com/weir-engine/weir/internal/timer"
)

// Sliced event-time windows (window slicing, as in Flink SQL's window
// aggregations): the time axis is cut into slices of Slide, every window is
// Size/Slide consecutive slices, and each element is added once, to the
// accumulator of its key and slice, instead of once per window it falls
// into. A window's result is the merge of its slices' accumulators, taken
// when it fires.
//
// State: the slices' accumulators in one keyed map state, by the slice as
// a window value [start, start+Slide). Tumbling windows are their own one
// slice, so their state and timers are those of the per-window path
// (windowOp) and a savepoint of either restores in the other; sliding
// windows keep theirs under another name ("window-slices"), since a slice
// is not a window; the operator chooses the path once the restored state
// is known (see windowchoice.go), so neither is restored into the other.
//
// Timers: one pending event-time timer per key, at the end of the
// earliest window of the key that has not fired, with that window as its
// namespace. A new slice registers the first window of it that is not
// past the watermark (deduplicated with the pending one); a firing window
// registers the next one if any of its slices is also in it. So a key
// holds one timer however many windows overlap, and each window that
// holds an element fires exactly once at its end, as with the per-window
// path.
//
// Allowed lateness: a slice is kept until its last window is past the
// allowed lateness, by a cleanup timer at that time (namespace: the last
// window); an element within the lateness fires again, at once, every
// window of its slice whose end the watermark has passed, latest first,
// with all its contents, as the default trigger does.

// sliceable reports whether spec and fns run as sliced windows: event
// time, the default trigger, no evictor or per-element timestamp, a
// result function (a ProcessWindowFunction may keep per-window state,
// which slices do not have), and for sliding windows a slide that divides
// the size and a merge of accumulators that is declared to combine slices.
func sliceable[K comparable, T, A, O any, W WindowType](spec WindowSpec[K, T, W], fns WindowFuncs[K, T, A, O, W]) bool {
	a := spec.Assigner
	switch {
	case !a.EventTime() || a.Merging() || spec.Trigger != nil:
		return false
	case fns.AddAt != nil || fns.EvictBefore != nil || fns.Process != nil || fns.Result == nil:
		return false
	case a.Slide == a.Size:
		return true
	}
	return a.Size%a.Slide == 0 && fns.Merge != nil && fns.MergeSlices
}

// slicedWindowOp is the window operator of sliced event-time windows.
type slicedWindowOp[K comparable, T, A, O any, W WindowType] struct {
	*keyed.Runtime[K, W]
	fns    WindowFuncs[K, T, A, O, W]
	spec   WindowSpec[K, T, W]
	late   op.Output[T]
	out    op.Output[O]
	slices *state.MapState[K, W, A]
	// size, slide, offset and lateness are the assigner's and spec's, in
	// milliseconds; n is size/slide, the slices of a window.
	size, slide, offset, lateness int64
	n                             int64
	// accs and has are fire's scratch: the accumulators of a window's
	// slices, oldest first.
	accs []A
	has  []bool
}

// newSlicedWindow returns the sliced path on the operator's runtime rt.
func newSlicedWindow[K comparable, T, A, O any, W WindowType](spec WindowSpec[K, T, W], fns WindowFuncs[K, T, A, O, W], out op.Output[O], rt *keyed.Runtime[K, W]) *slicedWindowOp[K, T, A, O, W] {
	a := spec.Assigner
	return &slicedWindowOp[K, T, A, O, W]{Runtime: rt, fns: fns, spec: spec, out: out,
		size: a.Size, slide: a.Slide, offset: a.Offset, lateness: spec.AllowedLateness, n: a.Size / a.Slide}
}

// slicesState is the state name of the path's accumulators: the
// per-window path's for tumbling windows, which are their own one slice
// (see above).
func (w *slicedWindowOp[K, T, A, O, W]) slicesState() string {
	if w.n == 1 {
		return contentsState
	}
	return slicesState
}

// open registers the state of the path, on the runtime the operator
// opened.
func (w *slicedWindowOp[K, T, A, O, W]) open(ctx *op.Context) error {
	var err error
	if w.slices, err = state.Map[K, W, A](w.Backend(), w.slicesState()); err != nil {
		return err
	}
	if w.spec.LateTag != "" {
		w.late, _ = ctx.SideOutputs[w.spec.LateTag].(op.Output[T])
	}
	w.SetOnTimer(w.onTimer)
	return nil
}

// sliceOf is the slice holding ts.
func (w *slicedWindowOp[K, T, A, O, W]) sliceOf(ts int64) W {
	start := ts - floorMod(ts-w.offset, w.slide)
	return W(Window{Start: start, End: start + w.slide})
}

// windowEnding is the window whose last slice starts at start.
func (w *slicedWindowOp[K, T, A, O, W]) windowEnding(lastSliceStart int64) W {
	end := lastSliceStart + w.slide
	return W(Window{Start: end - w.size, End: end})
}

// cleanupTime is when win is past the allowed lateness.
func (w *slicedWindowOp[K, T, A, O, W]) cleanupTime(win W) int64 {
	end := MaxTimestamp(win)
	if t := end + w.lateness; t >= end {
		return t
	}
	return math.MaxInt64
}

func (w *slicedWindowOp[K, T, A, O, W]) process(ts int64, group int, v T) error {
	if ts == op.NoTimestamp {
		return errors.New("element has no event timestamp: assign timestamps and watermarks before event-time windows")
	}
	wm := w.Timers().CurrentWatermark()
	slice := w.sliceOf(ts)
	s := Window(slice).Start
	lastWin := w.windowEnding(s + (w.n-1)*w.slide)
	if w.cleanupTime(lastWin) <= wm {
		// Every window of the element is past the allowed lateness.
		if w.late != nil && ts+w.lateness <= wm {
			return w.late.Collect(ts, v)
		}
		return nil
	}
	k := w.spec.Key(v)
	w.SetKeyInGroup(k, group)
	acc, existed := w.slices.Get(slice)
	if !existed {
		acc = w.fns.NewAcc()
	}
	acc, err := w.fns.Add(v, acc)
	if err != nil {
		return err
	}
	w.slices.Put(slice, acc)
	if !existed {
		w.registerSlice(s, wm, lastWin)
	}
	if MaxTimestamp(w.windowEnding(s)) <= wm {
		// A late element within the allowed lateness: the windows of
		// its slice that fired fire again, latest first.
		for j := w.n - 1; j >= 0; j-- {
			win := w.windowEnding(s + j*w.slide)
			if MaxTimestamp(win) <= wm && w.cleanupTime(win) > wm {
				if _, _, err := w.fire(k, win); err != nil {
					return err
				}
			}
		}
	}
	return w.Backend().Err()
}

// registerSlice registers the timers of a new slice starting at s of the
// current key: its first window that has not fired, and, with allowed
// lateness, the cleanup of its last window lastWin.
func (w *slicedWindowOp[K, T, A, O, W]) registerSlice(s, wm int64, lastWin W) {
	key := w.Backend().CurrentKey()
	for j := int64(0); j < w.n; j++ {
		if win := w.windowEnding(s + j*w.slide); MaxTimestamp(win) > wm {
			w.Timers().RegisterEventTimeTimer(key, win, MaxTimestamp(win))
			break
		}
	}
	if t := w.cleanupTime(lastWin); w.lateness > 0 && t != math.MaxInt64 {
		w.Timers().RegisterEventTimeTimer(key, lastWin, t)
	}
}

func (w *slicedWindowOp[K, T, A, O, W]) onTimer(t timer.Timer[K, W], domain keyed.TimeDomain) error {
	if domain != keyed.EventTime {
		return nil
	}
	win := t.Namespace
	start := Window(win).Start
	oldest := W(Window{Start: start, End: start + w.slide})
	hasOldest := true // unknown: the state may hold it
	if t.Timestamp == MaxTimestamp(win) {
		later, has, err := w.fire(t.Key, win)
		if err != nil {
			return err
		}
		hasOldest = has
		if later {
			// Some slice of win but the oldest is in the next window.
			next := W(Window{Start: start + w.slide, End: Window(win).End + w.slide})
			w.Timers().RegisterEventTimeTimer(t.Key, next, MaxTimestamp(next))
		}
	}
	if t.Timestamp == w.cleanupTime(win) && hasOldest {
		// win is the oldest slice's last window.
		w.slices.Remove(oldest)
	}
	return nil
}

// fire emits the result of win, the merge of its slices, oldest first,
// if any holds an element. It reports whether a slice of win other than
// the oldest holds one (the next window then holds it too), and whether
// the oldest does (without allowed lateness, onTimer removes it then, and
// skips the lookup of a slice that is not there).
func (w *slicedWindowOp[K, T, A, O, W]) fire(k K, win W) (later, oldest bool, err error) {
	if w.n == 1 {
		// Tumbling: the window is its one slice.
		acc, ok := w.slices.Get(win)
		if !ok {
			return false, false, nil
		}
		return false, true, w.emit(k, win, acc)
	}
	// One pass over the key's slices (a handful: those of the windows
	// not yet fired) instead of a lookup per slice of win.
	if w.accs == nil {
		w.accs, w.has = make([]A, w.n), make([]bool, w.n)
	}
	start, found := Window(win).Start, false
	for slice, a := range w.slices.All() {
		if i := (Window(slice).Start - start) / w.slide; Window(slice).Start >= start && i < w.n {
			w.accs[i], w.has[i] = a, true
			found = true
			later = later || i > 0
			oldest = oldest || i == 0
		}
	}
	if !found {
		return false, false, nil
	}
	var acc A
	first := true
	var zero A
	for i := range w.accs {
		switch {
		case !w.has[i]:
		case first:
			acc, first = w.accs[i], false
		case err == nil:
			acc, err = w.fns.Merge(acc, w.accs[i])
		}
		w.accs[i], w.has[i] = zero, false
	}
	if err != nil {
		return later, oldest, err
	}
	return later, oldest, w.emit(k, win, acc)
}

// emit emits the result of win's accumulator.
func (w *slicedWindowOp[K, T, A, O, W]) emit(k K, win W, acc A) error {
	r, err := w.fns.Result(k, win, acc)
	if err != nil {
		return err
	}
	return w.out.Collect(MaxTimestamp(win), r)
}
