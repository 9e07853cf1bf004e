package keyedop

import (
	"errors"
	"math"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
	"github.com/weir-engine/weir/internal/state/keyed"
	"github.com/weir-engine/weir/internal/timer"
)

// WindowFuncs fold the elements of a key and window into an accumulator
// of type A and turn it into the window's results at each firing.
type WindowFuncs[K comparable, T, A, O any, W WindowType] struct {
	NewAcc func() A
	Add    func(v T, acc A) (A, error)
	// Merge combines the accumulators of windows that merge (session
	// windows); merging assigners need it.
	Merge func(a, b A) (A, error)
	// MergeSlices says Merge may also combine the accumulators of the
	// slices of a sliding window, oldest first (an AggregateFunction's
	// merge): the operator then adds each element to one slice instead
	// of every window it falls into (see windowslice.go).
	MergeSlices bool
	// Result turns the accumulator into the one result of a firing;
	// Process, when set, is called instead and emits what it likes.
	Result  func(k K, w W, acc A) (O, error)
	Process func(ctx *WindowContext[K, O, W], acc A) error
	// AddAt, when set, is called instead of Add with the element's
	// timestamp; EvictBefore and EvictAfter, when set, change the
	// accumulator before and after each firing (see Evicting).
	AddAt       func(v T, ts int64, acc A) (A, error)
	EvictBefore func(acc A, w W) A
	EvictAfter  func(acc A, w W) A
}

// WindowSpec is what a window operator needs besides its functions.
type WindowSpec[K comparable, T any, W WindowType] struct {
	Assigner Assigner
	// Trigger decides when windows fire (nil: the assigner's default,
	// EventTimeTrigger or ProcessingTimeTrigger).
	Trigger Trigger[T, W]
	// AllowedLateness keeps event-time windows for this many milliseconds
	// after the watermark passed their end: a late element within it
	// fires the window again.
	AllowedLateness int64
	// LateTag is the side output of elements whose windows are all past
	// the allowed lateness ("": they are dropped).
	LateTag string
	Key     func(T) K
	Hash    func(K) uint32
	// Hooks open and close the user function (nil: none).
	Hooks Hooks[K]
}

// DefaultTrigger is the trigger of windows of a without a custom one.
func DefaultTrigger[T any, W WindowType](a Assigner) Trigger[T, W] {
	if a.Processing {
		return ProcessingTimeTrigger[T, W]{}
	}
	if a.Global {
		return neverTrigger[T, W]{}
	}
	return EventTimeTrigger[T, W]{}
}

// ValidateWindow says why spec and fns do not make a window operator.
func ValidateWindow[K comparable, T, A, O any, W WindowType](spec WindowSpec[K, T, W], fns WindowFuncs[K, T, A, O, W]) error {
	if err := spec.Assigner.Validate(); err != nil {
		return err
	}
	switch {
	case spec.AllowedLateness < 0:
		return errors.New("weir: allowed lateness must not be negative")
	case spec.Assigner.Merging() && fns.Merge == nil:
		return errors.New("weir: merging (session) windows need a function that can merge accumulators: an AggregateFunction with Merge")
	case spec.Assigner.Merging() && spec.Trigger != nil && !spec.Trigger.CanMerge():
		return errors.New("weir: the trigger cannot merge, and session windows merge")
	}
	return nil
}

// NewWindow returns the window operator of fns, emitting to out.
func NewWindow[K comparable, T, A, O any, W WindowType](spec WindowSpec[K, T, W], fns WindowFuncs[K, T, A, O, W], out op.Output[O]) any {
	return newWindowOperator(spec, fns, out, sliceable(spec, fns))
}

// newPerWindow returns the window path that keeps every window's
// accumulator, on the operator's runtime rt (windowOperator chooses it
// where slicing does not apply).
func newPerWindow[K comparable, T, A, O any, W WindowType](spec WindowSpec[K, T, W], fns WindowFuncs[K, T, A, O, W], out op.Output[O], rt *keyed.Runtime[K, W]) *windowOp[K, T, A, O, W] {
	w := &windowOp[K, T, A, O, W]{Runtime: rt, fns: fns, spec: spec, trigger: spec.Trigger, out: out, eventTime: spec.Assigner.EventTime()}
	if w.trigger == nil {
		w.trigger = DefaultTrigger[T, W](spec.Assigner)
		_, isDefault := w.trigger.(EventTimeTrigger[T, W])
		w.triggerCleans = isDefault && spec.AllowedLateness == 0
	}
	w.spec.Trigger = w.trigger
	return w
}

// windowOp keeps one accumulator per key and window in keyed map state,
// per-window state beside it, and the timers its trigger registers, with
// the window as their namespace; a cleanup timer per window removes all of
// it when the window is past the allowed lateness (Flink's
// WindowOperator).
type windowOp[K comparable, T, A, O any, W WindowType] struct {
	*keyed.Runtime[K, W]
	fns      WindowFuncs[K, T, A, O, W]
	spec     WindowSpec[K, T, W]
	trigger  Trigger[T, W]
	late     op.Output[T]
	out      op.Output[O]
	contents *state.MapState[K, W, A]
	perWin   *state.MapState[K, windowStateKey[W], []byte]
	windows  []W
	scratch  []W
	tctx     TriggerContext[W]
	wctx     WindowContext[K, O, W]
	// eventTime caches spec.Assigner.EventTime(), asked per element.
	eventTime bool
	// triggerCleans is set when the trigger's own timer at the window's
	// end is also the cleanup time (the default event-time trigger without
	// allowed lateness), so no separate cleanup timer is kept.
	triggerCleans bool
}

// open registers the state of the path, on the runtime the operator
// opened.
func (w *windowOp[K, T, A, O, W]) open(ctx *op.Context) error {
	var err error
	if w.contents, err = state.Map[K, W, A](w.Backend(), contentsState); err != nil {
		return err
	}
	if w.perWin, err = state.Map[K, windowStateKey[W], []byte](w.Backend(), "window-state"); err != nil {
		return err
	}
	if w.spec.LateTag != "" {
		w.late, _ = ctx.SideOutputs[w.spec.LateTag].(op.Output[T])
	}
	w.tctx.ops = w
	w.wctx = WindowContext[K, O, W]{ops: w, ctx: ctx, out: w.out, merging: w.spec.Assigner.Merging()}
	w.SetOnTimer(w.onTimer)
	return nil
}

func (w *windowOp[K, T, A, O, W]) process(ts int64, group int, v T) error {
	a := w.spec.Assigner
	at := ts
	switch {
	case a.Processing:
		at = w.Context().ProcessingTime()
	case w.eventTime && ts == op.NoTimestamp:
		return errors.New("element has no event timestamp: assign timestamps and watermarks before event-time windows")
	}
	k := w.spec.Key(v)
	w.SetKeyInGroup(k, group)
	w.windows = Assign(a, w.windows[:0], at)
	skipped := true
	for _, win := range w.windows {
		if a.Merging() {
			var err error
			if win, err = w.mergeInto(win); err != nil {
				return err
			}
		}
		if w.isWindowLate(win) {
			continue
		}
		skipped = false
		if err := w.add(k, win, ts, v); err != nil {
			return err
		}
	}
	if skipped && w.late != nil && w.isElementLate(ts) {
		if err := w.late.Collect(ts, v); err != nil {
			return err
		}
	}
	return w.Backend().Err()
}

// add adds v to win and asks the trigger.
func (w *windowOp[K, T, A, O, W]) add(k K, win W, ts int64, v T) error {
	acc, existed := w.contents.Get(win)
	if !existed {
		acc = w.fns.NewAcc()
	}
	var err error
	if w.fns.AddAt != nil {
		acc, err = w.fns.AddAt(v, ts, acc)
	} else {
		acc, err = w.fns.Add(v, acc)
	}
	if err != nil {
		return err
	}
	w.contents.Put(win, acc)
	w.tctx.w, w.tctx.fresh = win, !existed
	res, err := w.trigger.OnElement(&w.tctx, v, ts, win)
	if err != nil {
		return err
	}
	if res.IsFire() {
		if err := w.emit(k, win, acc); err != nil {
			return err
		}
	}
	if res.IsPurge() {
		w.contents.Remove(win)
	}
	if !existed {
		w.registerCleanup(win)
	}
	return nil
}

func (w *windowOp[K, T, A, O, W]) onTimer(t timer.Timer[K, W], domain keyed.TimeDomain) error {
	win := t.Namespace
	w.tctx.w, w.tctx.fresh = win, false
	var res TriggerResult
	var err error
	if domain == keyed.EventTime {
		res, err = w.trigger.OnEventTime(&w.tctx, t.Timestamp, win)
	} else {
		res, err = w.trigger.OnProcessingTime(&w.tctx, t.Timestamp, win)
	}
	if err != nil {
		return err
	}
	if res != Continue {
		if acc, ok := w.contents.Get(win); ok {
			if res.IsFire() {
				if err := w.emit(t.Key, win, acc); err != nil {
					return err
				}
			}
			if res.IsPurge() {
				w.contents.Remove(win)
			}
		}
	}
	if (domain == keyed.EventTime) == w.eventTime && t.Timestamp == w.cleanupTime(win) {
		return w.clearAll(win)
	}
	return nil
}

// emit emits the result of firing win, with the evictor's changes to its
// contents, if any.
func (w *windowOp[K, T, A, O, W]) emit(k K, win W, acc A) error {
	if w.fns.EvictBefore == nil {
		return w.emitResult(k, win, acc)
	}
	acc = w.fns.EvictBefore(acc, win)
	if err := w.emitResult(k, win, acc); err != nil {
		return err
	}
	w.contents.Put(win, w.fns.EvictAfter(acc, win))
	return nil
}

func (w *windowOp[K, T, A, O, W]) emitResult(k K, win W, acc A) error {
	if w.fns.Process != nil {
		w.wctx.key, w.wctx.w = k, win
		if err := w.fns.Process(&w.wctx, acc); err != nil {
			return err
		}
		err := w.wctx.err
		w.wctx.err = nil
		return err
	}
	r, err := w.fns.Result(k, win, acc)
	if err != nil {
		return err
	}
	return w.out.Collect(MaxTimestamp(win), r)
}

// clearAll removes the contents, the per-window state and the trigger's
// timers of win.
func (w *windowOp[K, T, A, O, W]) clearAll(win W) error {
	w.contents.Remove(win)
	w.clearWindowState(win)
	return w.trigger.Clear(w.tctx.at(win), win)
}

func (w *windowOp[K, T, A, O, W]) clearWindowState(win W) {
	if w.perWin.IsEmpty() {
		return
	}
	var names []windowStateKey[W]
	for k := range w.perWin.Keys() {
		if k.W == win {
			names = append(names, k)
		}
	}
	for _, k := range names {
		w.perWin.Remove(k)
	}
}

// cleanupTime is when win's state goes: the end of an event-time window
// plus the allowed lateness, the end of a processing-time window, never
// (math.MaxInt64) for the global window.
func (w *windowOp[K, T, A, O, W]) cleanupTime(win W) int64 {
	end := MaxTimestamp(win)
	if Window(win).End == math.MaxInt64 {
		return math.MaxInt64
	}
	if !w.eventTime {
		return end
	}
	if t := end + w.spec.AllowedLateness; t >= end {
		return t
	}
	return math.MaxInt64
}

func (w *windowOp[K, T, A, O, W]) registerCleanup(win W) {
	if w.triggerCleans {
		return
	}
	t := w.cleanupTime(win)
	switch {
	case t == math.MaxInt64:
	case w.eventTime:
		w.registerEventTimer(win, t)
	default:
		w.registerProcessingTimer(win, t)
	}
}

func (w *windowOp[K, T, A, O, W]) deleteCleanup(win W) {
	if w.triggerCleans {
		return
	}
	t := w.cleanupTime(win)
	switch {
	case t == math.MaxInt64:
	case w.eventTime:
		w.deleteEventTimer(win, t)
	default:
		w.deleteProcessingTimer(win, t)
	}
}

// isWindowLate says an event-time window is past the allowed lateness.
func (w *windowOp[K, T, A, O, W]) isWindowLate(win W) bool {
	return w.eventTime && w.cleanupTime(win) <= w.watermark()
}

// isElementLate says an element of event time ts is past the allowed
// lateness.
func (w *windowOp[K, T, A, O, W]) isElementLate(ts int64) bool {
	return w.eventTime && ts+w.spec.AllowedLateness <= w.watermark()
}

// windowOps, for the trigger and window contexts.

func (w *windowOp[K, T, A, O, W]) watermark() int64 { return w.Timers().CurrentWatermark() }
func (w *windowOp[K, T, A, O, W]) now() int64       { return w.Context().ProcessingTime() }
func (w *windowOp[K, T, A, O, W]) registerEventTimer(win W, ts int64) {
	w.Timers().RegisterEventTimeTimer(w.Backend().CurrentKey(), win, ts)
}
func (w *windowOp[K, T, A, O, W]) registerProcessingTimer(win W, ts int64) {
	w.RegisterProcessingTimer(win, ts)
}
func (w *windowOp[K, T, A, O, W]) deleteEventTimer(win W, ts int64) {
	w.Timers().DeleteEventTimeTimer(w.Backend().CurrentKey(), win, ts)
}
func (w *windowOp[K, T, A, O, W]) deleteProcessingTimer(win W, ts int64) {
	w.Timers().DeleteProcessingTimeTimer(w.Backend().CurrentKey(), win, ts)
}
func (w *windowOp[K, T, A, O, W]) getState(win W, name string) ([]byte, bool) {
	return w.perWin.Get(windowStateKey[W]{win, name})
}
func (w *windowOp[K, T, A, O, W]) putState(win W, name string, b []byte) {
	w.perWin.Put(windowStateKey[W]{win, name}, b)
}
func (w *windowOp[K, T, A, O, W]) removeState(win W, name string) {
	w.perWin.Remove(windowStateKey[W]{win, name})
}

// neverTrigger never fires: the global window's default.
type neverTrigger[T any, W WindowType] struct{}

func (neverTrigger[T, W]) OnElement(*TriggerContext[W], T, int64, W) (TriggerResult, error) {
	return Continue, nil
}
func (neverTrigger[T, W]) OnEventTime(*TriggerContext[W], int64, W) (TriggerResult, error) {
	return Continue, nil
}
func (neverTrigger[T, W]) OnProcessingTime(*TriggerContext[W], int64, W) (TriggerResult, error) {
	return Continue, nil
}
func (neverTrigger[T, W]) CanMerge() bool                           { return true }
func (neverTrigger[T, W]) OnMerge(*TriggerContext[W], W, []W) error { return nil }
func (neverTrigger[T, W]) Clear(*TriggerContext[W], W) error        { return nil }
