package watermark

import (
	"time"

	"github.com/weir-engine/weir/internal/op"
)

// New returns the operator of strategy w emitting to out; w.Interval must
// be set unless w.PerElement.
func New[T any](w Strategy[T], out op.Output[T]) *Op[T] {
	b, _ := out.(op.BatchOutput[T])
	return &Op[T]{strategy: w, out: out, batch: b, maxTS: op.MinWatermark, emitted: op.MinWatermark}
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
	// batch is out when it takes batches (op.BatchOutput); ts holds the
	// timestamps of the batch CollectBatch hands on.
	batch   op.BatchOutput[T]
	ts      []int64
	ctx     *op.Context
	onTick  func() error // periodic, made once
	maxTS   int64
	emitted int64
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
	if w.onTick == nil {
		w.onTick = w.periodic
	}
	w.ctx.Timers.Schedule(w.ctx.Timers.Now().Add(w.tickInterval()), w.onTick)
}

// periodic runs every tickInterval.
func (w *Op[T]) periodic() error {
	if err := w.tick(w.ctx.Timers.Now()); err != nil {
		return err
	}
	w.schedule()
	return nil
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

// CollectBatch implements op.BatchOutput for a chained predecessor (a
// source handing on one poll's records): the timestamps of the batch are
// taken in one loop and the records go on as one batch when the output
// takes batches. The output sees what it would see from one
// ProcessElement per record:
//
//   - A periodic watermark is emitted by a timer, which the task runs
//     between the steps of its loop, never inside one; a batch is made
//     within one step, so no periodic watermark ever fell between its
//     records, and the largest timestamp is simply that of the whole batch.
//   - A per-element watermark (Strategy.PerElement) follows the record
//     that advanced it: the batch is split after each such record, which
//     goes on with the records before it, then the watermark.
//   - ACTIVE, if the Op announced IDLE, goes before the first record.
func (w *Op[T]) CollectBatch(_ []int64, vs []T) error {
	if len(vs) == 0 {
		return nil
	}
	if w.batch == nil {
		for _, v := range vs {
			if err := w.ProcessElement(op.NoTimestamp, v); err != nil {
				return err
			}
		}
		return nil
	}
	if cap(w.ts) < len(vs) {
		w.ts = make([]int64, len(vs))
	}
	ts := w.ts[:len(vs)]
	w.active = true
	if err := w.activate(); err != nil {
		return err
	}
	if w.strategy.PerElement {
		return w.collectPerElement(ts, vs)
	}
	tsOf, maxTS := w.strategy.Timestamp, w.maxTS
	for i := range vs {
		t := tsOf(vs[i])
		ts[i] = t
		maxTS = max(maxTS, t)
	}
	w.maxTS = maxTS
	return w.batch.CollectBatch(ts, vs)
}

// collectPerElement is CollectBatch with a watermark after every record
// that advances it: the records up to such a record go on as one batch,
// then the watermark.
func (w *Op[T]) collectPerElement(ts []int64, vs []T) error {
	bound := w.strategy.OutOfOrderness.Milliseconds() + 1
	start := 0
	for i := range vs {
		t := w.strategy.Timestamp(vs[i])
		ts[i] = t
		w.maxTS = max(w.maxTS, t)
		if wm := w.maxTS - bound; w.maxTS != op.MinWatermark && wm > w.emitted {
			if err := w.batch.CollectBatch(ts[start:i+1], vs[start:i+1]); err != nil {
				return err
			}
			start = i + 1
			if err := w.emit(wm); err != nil {
				return err
			}
		}
	}
	if start == len(vs) {
		return nil
	}
	return w.batch.CollectBatch(ts[start:], vs[start:])
}

// Collect is ProcessElement, so that the Op can be a predecessor's
// op.BatchOutput (through the chain's adapter, which names it in errors).
func (w *Op[T]) Collect(ts int64, v T) error { return w.ProcessElement(ts, v) }

// EmitWatermark is ProcessWatermark: a watermark from upstream.
func (w *Op[T]) EmitWatermark(wm int64) error { return w.ProcessWatermark(wm) }

// ProcessWatermark passes on only the final watermark of a bounded input.
func (w *Op[T]) ProcessWatermark(wm int64) error {
	if wm == op.MaxWatermark && w.emitted != op.MaxWatermark {
		return w.emit(wm)
	}
	return nil
}
