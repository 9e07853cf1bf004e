package weir

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/op"
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
	// Idleness, for the per-split watermarks of a split source
	// (SplitSource.Watermarks), is how long a split may emit nothing
	// before it no longer holds the watermark back (Flink's withIdleness);
	// 0: never idle.
	Idleness time.Duration
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
	case w.OutOfOrderness < 0 || w.Interval < 0:
		return invalid[T](s.env, fmt.Errorf("weir: AssignTimestampsAndWatermarks: negative duration in %+v", w))
	}
	if w.Interval == 0 {
		w.Interval = 200 * time.Millisecond
	}
	return newOperator[T, T](s, "Timestamps/Watermarks", func(out any) (any, error) {
		return &watermarkOp[T]{strategy: w, out: out.(op.Output[T]), maxTS: op.MinWatermark, emitted: op.MinWatermark}, nil
	})
}

type watermarkOp[T any] struct {
	op.Base
	strategy WatermarkStrategy[T]
	out      op.Output[T]
	ctx      *op.Context
	maxTS    int64
	emitted  int64
}

func (w *watermarkOp[T]) Open(ctx *op.Context) error {
	w.ctx = ctx
	if !w.strategy.PerElement {
		w.schedule()
	}
	return nil
}

func (w *watermarkOp[T]) schedule() {
	w.ctx.Timers.Schedule(w.ctx.Timers.Now().Add(w.strategy.Interval), func() error {
		if err := w.emitPeriodic(); err != nil {
			return err
		}
		w.schedule()
		return nil
	})
}

// emitPeriodic emits the watermark the largest timestamp allows, if it
// advanced.
func (w *watermarkOp[T]) emitPeriodic() error {
	if w.maxTS == op.MinWatermark {
		return nil
	}
	wm := w.maxTS - w.strategy.OutOfOrderness.Milliseconds() - 1
	if wm <= w.emitted {
		return nil
	}
	w.emitted = wm
	return w.out.EmitWatermark(wm)
}

func (w *watermarkOp[T]) ProcessElement(_ int64, v T) error {
	ts := w.strategy.Timestamp(v)
	w.maxTS = max(w.maxTS, ts)
	if err := w.out.Collect(ts, v); err != nil {
		return err
	}
	if w.strategy.PerElement {
		return w.emitPeriodic()
	}
	return nil
}

func (w *watermarkOp[T]) ProcessWatermark(wm int64) error {
	if wm == op.MaxWatermark && w.emitted != op.MaxWatermark {
		w.emitted = wm
		return w.out.EmitWatermark(wm)
	}
	return nil
}
