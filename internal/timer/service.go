package timer

import (
	"iter"
	"math"
)

// Service holds the event-time and processing-time timers of one keyed
// operator instance. The zero value is not ready to use; call NewService.
//
// It is not safe for concurrent use; see the package documentation for what
// callers must do.
type Service[K comparable, N comparable] struct {
	eventTime      queue[K, N]
	processingTime queue[K, N]
	watermark      int64
	firing         bool // inside a fire callback
}

// NewService returns a service with no timers and the watermark at
// math.MinInt64.
func NewService[K comparable, N comparable]() *Service[K, N] {
	return &Service[K, N]{watermark: math.MinInt64}
}

// RegisterEventTimeTimer asks for a callback when the watermark reaches ts.
// Registering a pending timer again does nothing; it keeps its place.
func (s *Service[K, N]) RegisterEventTimeTimer(key K, ns N, ts int64) {
	s.eventTime.push(Timer[K, N]{Timestamp: ts, Key: key, Namespace: ns})
}

// DeleteEventTimeTimer removes the timer if it is pending.
func (s *Service[K, N]) DeleteEventTimeTimer(key K, ns N, ts int64) {
	s.eventTime.remove(Timer[K, N]{Timestamp: ts, Key: key, Namespace: ns})
}

// RegisterProcessingTimeTimer asks for a callback when processing time
// reaches ts. Registering a pending timer again does nothing.
//
// It reports whether the earliest pending processing-time timer is now
// earlier than before (or there was none), in which case the caller must
// move its wake-up to ts. A new timer at the same timestamp as the earliest
// does not count: the wake-up is already right.
func (s *Service[K, N]) RegisterProcessingTimeTimer(key K, ns N, ts int64) (earliestChanged bool) {
	prev, had := s.processingTime.peek()
	added := s.processingTime.push(Timer[K, N]{Timestamp: ts, Key: key, Namespace: ns})
	return added && (!had || ts < prev)
}

// DeleteProcessingTimeTimer removes the timer if it is pending. The caller
// need not reschedule its wake-up (see the package documentation).
func (s *Service[K, N]) DeleteProcessingTimeTimer(key K, ns N, ts int64) {
	s.processingTime.remove(Timer[K, N]{Timestamp: ts, Key: key, Namespace: ns})
}

// CurrentWatermark returns the highest watermark passed to AdvanceWatermark,
// or math.MinInt64 before the first call.
func (s *Service[K, N]) CurrentWatermark() int64 {
	return s.watermark
}

// AdvanceWatermark sets the watermark to wm (unless it is already higher)
// and then fires every event-time timer with Timestamp <= wm, in timestamp
// order, ties in registration order, calling fire for each. The watermark is
// set before the first timer fires, so fire sees the new CurrentWatermark.
//
// fire may register and delete timers; due timers it registers fire in this
// call. The first error from fire stops firing and is returned as is; the
// timers not yet fired stay pending. See the package documentation for the
// exact rules.
func (s *Service[K, N]) AdvanceWatermark(wm int64, fire func(Timer[K, N]) error) error {
	if s.firing {
		return ErrReentrantAdvance
	}
	s.watermark = max(s.watermark, wm)
	return s.fireUpTo(&s.eventTime, wm, fire)
}

// AdvanceProcessingTime fires every processing-time timer with
// Timestamp <= now, by the same rules as AdvanceWatermark. Afterwards the
// caller schedules its next wake-up from NextProcessingTime.
func (s *Service[K, N]) AdvanceProcessingTime(now int64, fire func(Timer[K, N]) error) error {
	if s.firing {
		return ErrReentrantAdvance
	}
	return s.fireUpTo(&s.processingTime, now, fire)
}

// fireUpTo pops and fires the timers of q that are due at limit. The loop
// looks at the top of the heap again after every callback, which is what makes
// timers registered or deleted by fire take effect within the call.
func (s *Service[K, N]) fireUpTo(q *queue[K, N], limit int64, fire func(Timer[K, N]) error) error {
	s.firing = true
	defer func() { s.firing = false }()
	for {
		ts, ok := q.peek()
		if !ok || ts > limit {
			return nil
		}
		if err := fire(q.pop()); err != nil {
			return err
		}
	}
}

// NextProcessingTime returns the timestamp of the earliest pending
// processing-time timer, if there is one.
func (s *Service[K, N]) NextProcessingTime() (int64, bool) {
	return s.processingTime.peek()
}

// NumEventTimeTimers returns the number of pending event-time timers.
func (s *Service[K, N]) NumEventTimeTimers() int {
	return s.eventTime.len()
}

// NumProcessingTimeTimers returns the number of pending processing-time
// timers.
func (s *Service[K, N]) NumProcessingTimeTimers() int {
	return s.processingTime.len()
}

// EventTimeTimers returns the pending event-time timers in firing order. It
// sorts a copy when ranged over, O(n log n); it is meant for snapshots and
// tests, not for the per-record path.
func (s *Service[K, N]) EventTimeTimers() iter.Seq[Timer[K, N]] {
	return s.eventTime.all()
}

// ProcessingTimeTimers returns the pending processing-time timers in firing
// order, like EventTimeTimers.
func (s *Service[K, N]) ProcessingTimeTimers() iter.Seq[Timer[K, N]] {
	return s.processingTime.all()
}
