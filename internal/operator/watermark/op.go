package watermark

import "github.com/weir-engine/weir/internal/op"

// New returns the operator of strategy w emitting to out; w.Interval must
// be set unless w.PerElement.
func New[T any](w Strategy[T], out op.Output[T]) *Op[T] {
	return &Op[T]{strategy: w, out: out, maxTS: op.MinWatermark, emitted: op.MinWatermark}
}

// Op sets the event timestamp of every element by its Strategy and emits
// watermarks: periodically, or after every element that advances them.
// Watermarks from upstream are dropped, except the final MaxWatermark of a
// bounded input.
type Op[T any] struct {
	op.Base
	strategy Strategy[T]
	out      op.Output[T]
	ctx      *op.Context
	maxTS    int64
	emitted  int64
}

// Open starts the periodic emission.
func (w *Op[T]) Open(ctx *op.Context) error {
	w.ctx = ctx
	if !w.strategy.PerElement {
		w.schedule()
	}
	return nil
}

func (w *Op[T]) schedule() {
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
func (w *Op[T]) emitPeriodic() error {
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

// ProcessElement implements op.Input.
func (w *Op[T]) ProcessElement(_ int64, v T) error {
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

// ProcessWatermark passes on only the final watermark of a bounded input.
func (w *Op[T]) ProcessWatermark(wm int64) error {
	if wm == op.MaxWatermark && w.emitted != op.MaxWatermark {
		w.emitted = wm
		return w.out.EmitWatermark(wm)
	}
	return nil
}
