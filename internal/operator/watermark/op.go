package watermark

import (
	"time"

	"github.com/weir-engine/weir/internal/op"
)

// New returns the operator of strategy w emitting to out; w.Interval must
// be set unless w.PerElement.
func New[T any](w Strategy[T], out op.Output[T]) *Op[T] {
	return &Op[T]{strategy: w, out: out, maxTS: op.MinWatermark, emitted: op.MinWatermark}
}

// Op sets the event timestamp of every element by its Strategy and emits
// watermarks: periodically, or after every element that advances them.
// Watermarks from upstream are dropped, except the final MaxWatermark of a
// bounded input.
//
// With Strategy.Idleness (Flink's WatermarkStrategy.withIdleness), an Op
// that received no element for that long announces IDLE downstream
// (Flink's WatermarkStatus), so its subtask no longer holds back event
// time; it announces ACTIVE before its next element. Like Flink's
// TimestampsAndWatermarksOperator it owns the status of its subtask: the
// status of its inputs does not pass it (see task.WatermarkStatusSource).
type Op[T any] struct {
	op.Base
	strategy Strategy[T]
	out      op.Output[T]
	ctx      *op.Context
	maxTS    int64
	emitted  int64
	// status announces IDLE (true) or ACTIVE (false), nil when the
	// runtime does not take it; idle is the status announced last, active
	// whether an element came since the last tick, lastActive the tick
	// that last saw one (or the start).
	status     func(idle bool) error
	idle       bool
	active     bool
	lastActive time.Time
}

// SetWatermarkStatus implements task.WatermarkStatusSource.
func (w *Op[T]) SetWatermarkStatus(announce func(idle bool) error) { w.status = announce }

// Open starts the periodic emission and idleness check.
func (w *Op[T]) Open(ctx *op.Context) error {
	w.ctx = ctx
	if !w.strategy.PerElement || w.strategy.Idleness > 0 {
		w.lastActive = ctx.Timers.Now()
		w.schedule()
	}
	return nil
}

func (w *Op[T]) schedule() {
	w.ctx.Timers.Schedule(w.ctx.Timers.Now().Add(w.tickInterval()), func() error {
		if err := w.tick(w.ctx.Timers.Now()); err != nil {
			return err
		}
		w.schedule()
		return nil
	})
}

// tickInterval is how often the periodic check runs: the strategy's
// interval, or the default one for a per-element strategy with idleness.
func (w *Op[T]) tickInterval() time.Duration {
	if w.strategy.Interval > 0 {
		return w.strategy.Interval
	}
	return DefaultInterval
}

// tick emits the periodic watermark and announces IDLE once no element
// came for Idleness.
func (w *Op[T]) tick(now time.Time) error {
	if w.active {
		w.active, w.lastActive = false, now
	}
	if !w.strategy.PerElement {
		if err := w.emitPeriodic(); err != nil {
			return err
		}
	}
	if w.strategy.Idleness > 0 && !w.idle && w.status != nil && now.Sub(w.lastActive) >= w.strategy.Idleness {
		w.idle = true
		return w.status(true)
	}
	return nil
}

// emitPeriodic emits the watermark the largest timestamp allows, if it
// advanced.
func (w *Op[T]) emitPeriodic() error {
	if w.maxTS == op.MinWatermark {
		return nil
	}
	wm := w.maxTS - w.strategy.OutOfOrderness.Milliseconds() - 1
	if wm <= w.emitted {
		return nil
	}
	return w.emit(wm)
}

// emit emits watermark wm, ACTIVE first if the Op announced IDLE.
func (w *Op[T]) emit(wm int64) error {
	if err := w.activate(); err != nil {
		return err
	}
	w.emitted = wm
	return w.out.EmitWatermark(wm)
}

// activate announces ACTIVE if the Op announced IDLE.
func (w *Op[T]) activate() error {
	if !w.idle {
		return nil
	}
	w.idle = false
	return w.status(false)
}

// ProcessElement implements op.Input.
func (w *Op[T]) ProcessElement(_ int64, v T) error {
	ts := w.strategy.Timestamp(v)
	w.maxTS = max(w.maxTS, ts)
	w.active = true
	if err := w.activate(); err != nil {
		return err
	}
	if err := w.out.Collect(ts, v); err != nil {
		return err
	}
	if w.strategy.PerElement {
		return w.emitPeriodic()
	}
	return nil
}

// ProcessWatermark passes on only the final watermark of a bounded input.
func (w *Op[T]) ProcessWatermark(wm int64) error {
	if wm == op.MaxWatermark && w.emitted != op.MaxWatermark {
		return w.emit(wm)
	}
	return nil
}
