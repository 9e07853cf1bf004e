// Package processop holds the process operator of a non-keyed stream
// (package weir's ProcessStream): a user function that sees each element
// with its timestamp and emits to the main and side outputs. There are no
// keys, so there is no keyed state and no timers: registering one is an
// error (ErrTimerNotKeyed), as Flink refuses it. The function may keep
// operator state through its hooks (operator.StatefulHooks).
package processop

import (
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator"
	"github.com/weir-engine/weir/internal/operator/keyedop"
)

// ErrTimerNotKeyed is the error of a timer registered on a non-keyed
// stream.
var ErrTimerNotKeyed = errors.New("weir: timers are only supported on keyed streams: KeyBy the stream and use Process with a KeyedProcessFunction")

// Function processes the elements of a non-keyed stream (package weir's
// ProcessFunction).
type Function[T, R any] interface {
	ProcessElement(ctx *Context[R], v T) error
}

// WatermarkFunction is a Function that also hears of every watermark
// (package weir's WatermarkListener): OnWatermark runs when a watermark
// reaches the operator, before the operator forwards it, so what it emits
// precedes the watermark downstream. ctx carries no element: Collect emits
// without a timestamp, CollectWithTimestamp with the one given.
type WatermarkFunction[R any] interface {
	OnWatermark(ctx *Context[R], wm int64) error
}

// Context is what a process function sees of the element at hand: its
// timestamp, the time, and the outputs (package weir's ProcessContext).
type Context[R any] struct {
	keyedop.SideOutputs
	o *core[R]
}

// Timestamp is the event timestamp of the element; ok is false for
// elements without one.
func (c *Context[R]) Timestamp() (ts int64, ok bool) { return c.TS, c.TS != op.NoTimestamp }

// Collect emits v with the element's timestamp.
func (c *Context[R]) Collect(v R) { c.CollectWithTimestamp(v, c.TS) }

// CollectWithTimestamp emits v with event timestamp ts.
func (c *Context[R]) CollectWithTimestamp(v R, ts int64) {
	if c.Err == nil {
		c.Err = c.o.out.Collect(ts, v)
	}
}

// TimerService tells the time; registering or deleting a timer fails the
// function with ErrTimerNotKeyed once it returns.
func (c *Context[R]) TimerService() keyedop.TimerService { return timers[R]{c} }

type timers[R any] struct{ c *Context[R] }

func (t timers[R]) CurrentProcessingTime() int64 { return t.c.o.opctx.ProcessingTime() }
func (t timers[R]) CurrentWatermark() int64      { return t.c.o.wm }
func (t timers[R]) RegisterEventTimeTimer(ts int64) {
	t.refuse(fmt.Errorf("%w (event-time timer at %d)", ErrTimerNotKeyed, ts))
}
func (t timers[R]) RegisterProcessingTimeTimer(ts int64) {
	t.refuse(fmt.Errorf("%w (processing-time timer at %d)", ErrTimerNotKeyed, ts))
}
func (t timers[R]) DeleteEventTimeTimer(int64)      { t.refuse(ErrTimerNotKeyed) }
func (t timers[R]) DeleteProcessingTimeTimer(int64) { t.refuse(ErrTimerNotKeyed) }

func (t timers[R]) refuse(err error) {
	if t.c.Err == nil {
		t.c.Err = err
	}
}

// core is the part of the operator that does not depend on the input
// type.
type core[R any] struct {
	operator.UDF
	out   op.Output[R]
	state op.Snapshotter
	opctx *op.Context
	wm    int64
	ctx   Context[R]
	onWM  func(*Context[R], int64) error
}

// Op is the operator of a process function over elements of type T.
type Op[T, R any] struct {
	*core[R]
	fn func(*Context[R], T) error
}

// An Op takes batches from a chain although it is not an op.Output (it
// handles watermarks itself): the chain's adapter hands them on.
var _ op.BatchInput[int] = (*Op[int, int])(nil)

// New returns the process operator of fn emitting to out; hooks may be
// nil, and when they are operator.StatefulHooks the operator snapshots
// their operator state.
func New[T, R any](fn Function[T, R], hooks operator.Hooks, out op.Output[R]) *Op[T, R] {
	c := &core[R]{UDF: operator.UDF{Hooks: hooks}, out: out, wm: op.MinWatermark}
	c.state, _ = hooks.(op.Snapshotter)
	c.ctx.o = c
	if w, ok := fn.(WatermarkFunction[R]); ok {
		c.onWM = w.OnWatermark
	}
	return &Op[T, R]{core: c, fn: fn.ProcessElement}
}

// Open opens the function.
func (c *core[R]) Open(ctx *op.Context) error {
	c.opctx = ctx
	c.ctx.Outputs = ctx.SideOutputs
	return c.UDF.Open(ctx)
}

// ProcessWatermark records the watermark, lets a WatermarkFunction emit,
// and forwards the watermark.
func (c *core[R]) ProcessWatermark(wm int64) error {
	c.wm = wm
	if c.onWM != nil {
		c.ctx.TS = op.NoTimestamp
		if err := c.onWM(&c.ctx, wm); err != nil {
			return err
		}
		if err := c.ctx.TakeErr(); err != nil {
			return err
		}
	}
	return c.out.EmitWatermark(wm)
}

// SnapshotState snapshots the function's operator state, if it has any.
func (c *core[R]) SnapshotState(id int64) (*op.Snapshot, error) {
	if c.state == nil {
		return nil, nil
	}
	return c.state.SnapshotState(id)
}

// CollectBatch implements op.BatchOutput: the function runs over the
// batch in a loop, one call per element as ProcessElement makes it.
func (o *Op[T, R]) CollectBatch(ts []int64, vs []T) error {
	for i, v := range vs {
		o.ctx.TS = op.TimestampAt(ts, i)
		if err := o.fn(&o.ctx, v); err != nil {
			return err
		}
		if err := o.ctx.TakeErr(); err != nil {
			return err
		}
	}
	return nil
}

// ProcessElement implements op.Input.
func (o *Op[T, R]) ProcessElement(ts int64, v T) error {
	o.ctx.TS = ts
	if err := o.fn(&o.ctx, v); err != nil {
		return err
	}
	return o.ctx.TakeErr()
}
