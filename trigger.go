package weir

import "github.com/weir-engine/weir/internal/operator/keyedop"

// Trigger decides when a window fires and when its contents go (Flink's
// Trigger): OnElement for each element added to a window, OnEventTime and
// OnProcessingTime when a timer it registered for the window fires,
// OnMerge when windows merge into the given one (only if CanMerge), Clear
// when the window is removed, to delete its timers. Per-window state of a
// trigger (GetWindowState with its context) is removed with the window.
type Trigger[T any] = keyedop.Trigger[T, TimeWindow]

// TriggerContext gives a trigger the clocks, the timers of the window at
// hand and its per-window state.
type TriggerContext = keyedop.TriggerContext[TimeWindow]

// TriggerResult is a trigger's decision.
type TriggerResult = keyedop.TriggerResult

const (
	// Continue does nothing.
	Continue = keyedop.Continue
	// Fire emits the window's result and keeps its contents.
	Fire = keyedop.Fire
	// Purge drops the window's contents without emitting.
	Purge = keyedop.Purge
	// FireAndPurge emits the window's result and drops its contents.
	FireAndPurge = keyedop.FireAndPurge
)

// EventTimeTrigger is the default trigger of event-time windows: it fires
// when the watermark passes the window's end, and at once for each late
// element within the allowed lateness.
func EventTimeTrigger[T any]() Trigger[T] { return keyedop.EventTimeTrigger[T, TimeWindow]{} }

// ProcessingTimeTrigger is the default trigger of processing-time
// windows: it fires when the clock passes the window's end.
func ProcessingTimeTrigger[T any]() Trigger[T] { return keyedop.ProcessingTimeTrigger[T, TimeWindow]{} }

// CountTrigger fires when the window holds count elements since it last
// fired.
func CountTrigger[T any](count int64) Trigger[T] {
	return keyedop.CountTrigger[T, TimeWindow]{Count: count}
}

// PurgingTrigger makes each firing of t purge the window's contents.
func PurgingTrigger[T any](t Trigger[T]) Trigger[T] {
	return keyedop.PurgingTrigger[T, TimeWindow]{Trigger: t}
}
