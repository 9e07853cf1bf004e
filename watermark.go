package weir

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/watermark"
)

// WatermarkStrategy says how to take event timestamps from elements and how
// far behind the largest timestamp seen the watermark trails.
type WatermarkStrategy[T any] struct {
	// Timestamp returns an element's event time in milliseconds.
	Timestamp func(v T) int64
	// OutOfOrderness is how late an element may arrive relative to the
	// largest timestamp seen; the watermark is max - OutOfOrderness - 1ms.
	OutOfOrderness time.Duration
	// Interval is how often the watermark is emitted, in processing time
	// (default 200ms, Flink's auto-watermark interval).
	Interval time.Duration
	// PerElement emits the watermark after every element that advances it
	// (Flink's punctuated generator) instead of periodically: exact but
	// costly, for low rates and tests.
	PerElement bool
	// Idleness is how long a split of a split source
	// (SplitSource.Watermarks), or a subtask of
	// AssignTimestampsAndWatermarks, may receive nothing before it no
	// longer holds the watermark back (Flink's withIdleness; see
	// WithIdleness); 0: never idle.
	Idleness time.Duration
	// AlignmentGroup, MaxAllowedDrift and AlignmentUpdateInterval align
	// the watermarks of split sources (see WithWatermarkAlignment); an
	// empty group: no alignment.
	AlignmentGroup          string
	MaxAllowedDrift         time.Duration
	AlignmentUpdateInterval time.Duration
}

// BoundedOutOfOrderness is the strategy for elements at most maxDelay out of
// order.
func BoundedOutOfOrderness[T any](maxDelay time.Duration, ts func(T) int64) WatermarkStrategy[T] {
	return WatermarkStrategy[T]{Timestamp: ts, OutOfOrderness: maxDelay}
}

// MonotonousTimestamps is the strategy for elements in timestamp order.
func MonotonousTimestamps[T any](ts func(T) int64) WatermarkStrategy[T] {
	return WatermarkStrategy[T]{Timestamp: ts}
}

// AssignTimestampsAndWatermarks sets the event timestamp of every element
// and emits watermarks per the strategy. Watermarks from upstream are
// replaced, except the final MaxWatermark of a bounded input.
func AssignTimestampsAndWatermarks[T any](s DataStream[T], w WatermarkStrategy[T]) DataStream[T] {
	switch {
	case !s.ok():
		return invalid[T](s.env, errors.New("weir: AssignTimestampsAndWatermarks on an invalid stream"))
	case w.Timestamp == nil:
		return invalid[T](s.env, errors.New("weir: AssignTimestampsAndWatermarks: nil timestamp function"))
	case w.OutOfOrderness < 0 || w.Interval < 0 || w.Idleness < 0:
		return invalid[T](s.env, fmt.Errorf("weir: AssignTimestampsAndWatermarks: negative duration in %+v", w))
	case w.AlignmentGroup != "":
		return invalid[T](s.env, fmt.Errorf("weir: AssignTimestampsAndWatermarks: watermark alignment (group %q) needs a split source: set it as SplitSource.Watermarks", w.AlignmentGroup))
	}
	if w.Interval == 0 {
		w.Interval = watermark.DefaultInterval
	}
	return newOperator[T, T](s, "Timestamps/Watermarks", func(out any) (any, error) {
		return watermark.New(watermark.Strategy[T](w), out.(op.Output[T])), nil
	})
}
