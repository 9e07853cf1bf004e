package keyedop

// TriggerResult is what a trigger decides for a window (Flink's
// TriggerResult): whether to emit its result and whether to drop its
// contents.
type TriggerResult uint8

const (
	// Continue does nothing.
	Continue TriggerResult = iota
	// Fire emits the window's result and keeps its contents.
	Fire
	// Purge drops the window's contents without emitting.
	Purge
	// FireAndPurge emits the window's result and drops its contents.
	FireAndPurge
)

// IsFire reports whether r emits the window.
func (r TriggerResult) IsFire() bool { return r == Fire || r == FireAndPurge }

// IsPurge reports whether r drops the window's contents.
func (r TriggerResult) IsPurge() bool { return r == Purge || r == FireAndPurge }

func (r TriggerResult) String() string {
	switch r {
	case Fire:
		return "FIRE"
	case Purge:
		return "PURGE"
	case FireAndPurge:
		return "FIRE_AND_PURGE"
	}
	return "CONTINUE"
}

// Trigger decides when a window fires (Flink's Trigger). Its methods run
// with the window's key current; timers it registers call OnEventTime or
// OnProcessingTime for the same key and window. Per-window state it keeps
// (WindowValue on its context) is cleared by the operator with the window.
type Trigger[T any, W WindowType] interface {
	// OnElement is called for every element added to w.
	OnElement(ctx *TriggerContext[W], v T, ts int64, w W) (TriggerResult, error)
	// OnEventTime is called when an event-time timer of w fires.
	OnEventTime(ctx *TriggerContext[W], ts int64, w W) (TriggerResult, error)
	// OnProcessingTime is called when a processing-time timer of w fires.
	OnProcessingTime(ctx *TriggerContext[W], ts int64, w W) (TriggerResult, error)
	// CanMerge reports whether the trigger supports merging windows;
	// OnMerge is then called with the merged window when windows merge,
	// before Clear of each window merged away (as in Flink); merged is
	// valid only during the call.
	CanMerge() bool
	OnMerge(ctx *TriggerContext[W], w W, merged []W) error
	// Clear removes the timers the trigger registered for w (its
	// per-window state is removed by the operator).
	Clear(ctx *TriggerContext[W], w W) error
}

// TriggerContext is what a trigger sees: the clocks, the timers of the
// window at hand and its per-window state.
type TriggerContext[W WindowType] struct {
	ops windowOps[W]
	w   W
	// fresh says the window had no contents before this element: its
	// timers may be missing (the built-in triggers register them only
	// then, saving a deduplicating lookup per element).
	fresh bool
}

// windowOps is what the window operator lends trigger and window contexts,
// without its key and value types.
type windowOps[W WindowType] interface {
	watermark() int64
	now() int64
	registerEventTimer(w W, ts int64)
	registerProcessingTimer(w W, ts int64)
	deleteEventTimer(w W, ts int64)
	deleteProcessingTimer(w W, ts int64)
	windowStore[W]
}

// CurrentWatermark is the operator's event time in milliseconds.
func (c *TriggerContext[W]) CurrentWatermark() int64 { return c.ops.watermark() }

// CurrentProcessingTime is the wall clock in milliseconds.
func (c *TriggerContext[W]) CurrentProcessingTime() int64 { return c.ops.now() }

// RegisterEventTimeTimer calls OnEventTime for the window when the
// watermark reaches ts.
func (c *TriggerContext[W]) RegisterEventTimeTimer(ts int64) { c.ops.registerEventTimer(c.w, ts) }

// RegisterProcessingTimeTimer calls OnProcessingTime for the window when
// the clock reaches ts.
func (c *TriggerContext[W]) RegisterProcessingTimeTimer(ts int64) {
	c.ops.registerProcessingTimer(c.w, ts)
}

// DeleteEventTimeTimer deletes an event-time timer of the window.
func (c *TriggerContext[W]) DeleteEventTimeTimer(ts int64) { c.ops.deleteEventTimer(c.w, ts) }

// DeleteProcessingTimeTimer deletes a processing-time timer of the window.
func (c *TriggerContext[W]) DeleteProcessingTimeTimer(ts int64) {
	c.ops.deleteProcessingTimer(c.w, ts)
}

func (c *TriggerContext[W]) store() (windowStore[W], W, error) { return c.ops, c.w, nil }

// at returns c for window w.
func (c *TriggerContext[W]) at(w W) *TriggerContext[W] {
	c.w = w
	return c
}

// EventTimeTrigger fires a window once when the watermark passes its end,
// and at once for every element added later, within the allowed lateness
// (Flink's EventTimeTrigger, the default of event-time windows).
type EventTimeTrigger[T any, W WindowType] struct{}

func (EventTimeTrigger[T, W]) OnElement(ctx *TriggerContext[W], _ T, _ int64, w W) (TriggerResult, error) {
	end := MaxTimestamp(w)
	if end <= ctx.CurrentWatermark() {
		return Fire, nil // a late element: fire again with it
	}
	if ctx.fresh {
		ctx.RegisterEventTimeTimer(end)
	}
	return Continue, nil
}

func (EventTimeTrigger[T, W]) OnEventTime(_ *TriggerContext[W], ts int64, w W) (TriggerResult, error) {
	if ts == MaxTimestamp(w) {
		return Fire, nil
	}
	return Continue, nil
}

func (EventTimeTrigger[T, W]) OnProcessingTime(*TriggerContext[W], int64, W) (TriggerResult, error) {
	return Continue, nil
}

func (EventTimeTrigger[T, W]) CanMerge() bool { return true }

func (EventTimeTrigger[T, W]) OnMerge(ctx *TriggerContext[W], w W, _ []W) error {
	if end := MaxTimestamp(w); end > ctx.CurrentWatermark() {
		ctx.RegisterEventTimeTimer(end)
	}
	return nil
}

func (EventTimeTrigger[T, W]) Clear(ctx *TriggerContext[W], w W) error {
	ctx.DeleteEventTimeTimer(MaxTimestamp(w))
	return nil
}

// ProcessingTimeTrigger fires a window when the wall clock passes its end
// (Flink's ProcessingTimeTrigger, the default of processing-time windows).
type ProcessingTimeTrigger[T any, W WindowType] struct{}

func (ProcessingTimeTrigger[T, W]) OnElement(ctx *TriggerContext[W], _ T, _ int64, w W) (TriggerResult, error) {
	if ctx.fresh {
		ctx.RegisterProcessingTimeTimer(MaxTimestamp(w))
	}
	return Continue, nil
}

func (ProcessingTimeTrigger[T, W]) OnEventTime(*TriggerContext[W], int64, W) (TriggerResult, error) {
	return Continue, nil
}

func (ProcessingTimeTrigger[T, W]) OnProcessingTime(*TriggerContext[W], int64, W) (TriggerResult, error) {
	return Fire, nil
}

func (ProcessingTimeTrigger[T, W]) CanMerge() bool { return true }

func (ProcessingTimeTrigger[T, W]) OnMerge(ctx *TriggerContext[W], w W, _ []W) error {
	if end := MaxTimestamp(w); end > ctx.CurrentProcessingTime() {
		ctx.RegisterProcessingTimeTimer(end)
	}
	return nil
}

func (ProcessingTimeTrigger[T, W]) Clear(ctx *TriggerContext[W], w W) error {
	ctx.DeleteProcessingTimeTimer(MaxTimestamp(w))
	return nil
}

// CountTrigger fires a window when it holds Count elements, and starts
// counting anew (Flink's CountTrigger; count windows purge it with
// PurgingTrigger).
type CountTrigger[T any, W WindowType] struct{ Count int64 }

const countState = "count-trigger"

func (c CountTrigger[T, W]) OnElement(ctx *TriggerContext[W], _ T, _ int64, w W) (TriggerResult, error) {
	st := WindowValue[int64](ctx, countState)
	n, _ := st.Value()
	n++
	if n >= c.Count {
		st.Clear()
		return Fire, st.Err()
	}
	st.Update(n)
	return Continue, st.Err()
}

func (CountTrigger[T, W]) OnEventTime(*TriggerContext[W], int64, W) (TriggerResult, error) {
	return Continue, nil
}

func (CountTrigger[T, W]) OnProcessingTime(*TriggerContext[W], int64, W) (TriggerResult, error) {
	return Continue, nil
}

func (CountTrigger[T, W]) CanMerge() bool { return true }

// OnMerge adds up the counts of the merged windows.
func (CountTrigger[T, W]) OnMerge(ctx *TriggerContext[W], w W, merged []W) error {
	var sum int64
	for _, m := range merged {
		n, _ := WindowValue[int64](ctx.at(m), countState).Value()
		sum += n
	}
	st := WindowValue[int64](ctx.at(w), countState)
	st.Update(sum)
	return st.Err()
}

func (CountTrigger[T, W]) Clear(*TriggerContext[W], W) error { return nil }

// PurgingTrigger turns every Fire of its trigger into FireAndPurge (Flink's
// PurgingTrigger).
type PurgingTrigger[T any, W WindowType] struct{ Trigger[T, W] }

func purging(r TriggerResult, err error) (TriggerResult, error) {
	if r == Fire {
		r = FireAndPurge
	}
	return r, err
}

func (p PurgingTrigger[T, W]) OnElement(ctx *TriggerContext[W], v T, ts int64, w W) (TriggerResult, error) {
	return purging(p.Trigger.OnElement(ctx, v, ts, w))
}

func (p PurgingTrigger[T, W]) OnEventTime(ctx *TriggerContext[W], ts int64, w W) (TriggerResult, error) {
	return purging(p.Trigger.OnEventTime(ctx, ts, w))
}

func (p PurgingTrigger[T, W]) OnProcessingTime(ctx *TriggerContext[W], ts int64, w W) (TriggerResult, error) {
	return purging(p.Trigger.OnProcessingTime(ctx, ts, w))
}
