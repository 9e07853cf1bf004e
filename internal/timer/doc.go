// Package timer is the internal timer service of a keyed operator, the Weir
// counterpart of Flink's InternalTimerService.
//
// # What it owns
//
// A [Service] holds the pending timers of one operator instance. A timer is a
// (timestamp, key, namespace) triple; the namespace is whatever the operator
// scopes state by, a window for example. There are two independent queues:
// event-time timers fire when the watermark passes them, processing-time
// timers when the caller's clock does. Each queue fires by timestamp and, for
// equal timestamps, in registration order. It groups the timers by timestamp
// (a bucket per timestamp, in registration order, and a binary min-heap of
// the buckets); each bucket finds its timers by key and namespace, by a
// scan while it is small and by an index past that, which firing never
// updates (a fired timer's entry goes stale, and the index is cleared with
// its bucket). Registering, deleting and firing are O(1) plus O(log b) when
// a timestamp's bucket is added or dropped, b the pending timestamps, and
// registering a timer that is already pending does nothing.
//
// The service never reads a clock and starts no goroutines: time is an input.
// The watermark arrives through [Service.AdvanceWatermark]; the current
// processing time through [Service.AdvanceProcessingTime], which the task
// calls when the wake-up it scheduled for [Service.NextProcessingTime] is due.
//
// # What callers must do
//
//   - Use a service from one goroutine, the task's mailbox goroutine; there
//     are no locks.
//   - Set the timer's key as the keyed backend's current key before running
//     the operator's onTimer logic: fire gets the whole [Timer] but does not
//     touch state itself.
//   - Reschedule the processing-time wake-up when
//     [Service.RegisterProcessingTimeTimer] reports that the earliest timer
//     became earlier, and after AdvanceProcessingTime returns. Deleting a
//     timer never asks for a reschedule: a wake-up with nothing due fires
//     nothing, which is cheaper than tracking it, as in Flink.
//   - Do not call AdvanceWatermark or AdvanceProcessingTime from inside a
//     fire callback ([ErrReentrantAdvance]); registering and deleting timers
//     there is fine.
//
// # Firing rules
//
// A timer is removed from its queue just before fire is called for it, so
// fire may register it again (for a later time; registering it again at a
// time that is still due fires it again in the same call, forever if it keeps
// doing so). Timers that fire registers or deletes take effect at once: a new
// timer that is due fires within the same call, in timestamp order; a deleted
// one does not fire. The first error from fire stops the call and is
// returned; the failing timer is gone and every other timer stays pending.
//
// An event-time timer registered at or below the current watermark does not
// fire at once; it fires at the next AdvanceWatermark, as in Flink. The
// watermark never moves backwards: AdvanceWatermark with a lower value keeps
// the watermark but still fires timers at or below the value passed.
//
// Memory: the queues keep their backing arrays at their high-water mark.
package timer
