package broadcastop

import (
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator"
	"github.com/weir-engine/weir/internal/operator/keyedop"
	"github.com/weir-engine/weir/internal/state/opstate"
)

// Function processes a non-keyed stream connected to a broadcast stream
// (package weir's BroadcastProcessFunction).
type Function[T, B, R any] interface {
	ProcessElement(ctx *ReadOnlyContext[R], v T) error
	ProcessBroadcastElement(ctx *Context[R], v B) error
}

// ReadOnlyContext is what the function sees of an element of the
// non-broadcast input: its timestamp, the outputs, the time, and the
// broadcast state to read.
type ReadOnlyContext[R any] struct {
	keyedop.SideOutputs
	o *Op[R]
}

// Timestamp is the event timestamp of the element; ok is false for
// elements without one.
func (c *ReadOnlyContext[R]) Timestamp() (ts int64, ok bool) { return c.TS, c.TS != op.NoTimestamp }

// Collect emits v with the element's timestamp.
func (c *ReadOnlyContext[R]) Collect(v R) { c.CollectWithTimestamp(v, c.TS) }

// CollectWithTimestamp emits v with event timestamp ts.
func (c *ReadOnlyContext[R]) CollectWithTimestamp(v R, ts int64) {
	if c.Err == nil {
		c.Err = c.o.out.Collect(ts, v)
	}
}

// CurrentWatermark is the operator's event time in milliseconds.
func (c *ReadOnlyContext[R]) CurrentWatermark() int64 { return c.o.wm }

// CurrentProcessingTime is the wall clock in milliseconds.
func (c *ReadOnlyContext[R]) CurrentProcessingTime() int64 { return c.o.opctx.ProcessingTime() }

// ReadOnlyBroadcastStates returns the broadcast states, to read.
func (c *ReadOnlyContext[R]) ReadOnlyBroadcastStates() *opstate.BroadcastStates { return c.o.states }

// Context is what the function sees of a broadcast element: a
// ReadOnlyContext whose broadcast states it may also write.
type Context[R any] struct{ ReadOnlyContext[R] }

// BroadcastStates returns the broadcast states, to read and write.
func (c *Context[R]) BroadcastStates() *opstate.BroadcastStates { return c.o.states }

// Op is the non-keyed broadcast process operator: input 0 is the
// non-broadcast stream, input 1 the broadcast one. The element-type
// independent part is Op; New returns it with its typed inputs.
type Op[R any] struct {
	operator.UDF
	out      op.Output[R]
	declared []string
	states   *opstate.BroadcastStates
	opctx    *op.Context
	wm       int64
	ro       Context[R]
}

// New returns the operator of fn over its two inputs with the broadcast
// states declared, emitting to out; hooks may be nil.
func New[T, B, R any](fn Function[T, B, R], declared []string, hooks operator.Hooks, out op.Output[R]) any {
	o := &Op[R]{UDF: operator.UDF{Hooks: hooks}, out: out, declared: declared, wm: op.MinWatermark}
	o.ro.o = o
	return &twoInputs[T, B, R]{Op: o, first: &input[T, R]{o: o, fn: fn.ProcessElement}, second: &bcInput[B, R]{o: o, fn: fn.ProcessBroadcastElement}}
}

// Open restores the broadcast states and opens the function.
func (o *Op[R]) Open(ctx *op.Context) error {
	o.opctx = ctx
	o.states = opstate.NewBroadcastStates(ctx.Restored, o.declared)
	o.ro.Outputs = ctx.SideOutputs
	return o.UDF.Open(ctx)
}

// ProcessWatermark records the watermark and forwards it.
func (o *Op[R]) ProcessWatermark(wm int64) error {
	o.wm = wm
	return o.out.EmitWatermark(wm)
}

// SnapshotState snapshots the broadcast states.
func (o *Op[R]) SnapshotState(int64) (*op.Snapshot, error) {
	lists, err := o.states.Snapshot()
	if err != nil {
		return nil, err
	}
	return &op.Snapshot{Lists: lists}, nil
}

type twoInputs[T, B, R any] struct {
	*Op[R]
	first  *input[T, R]
	second *bcInput[B, R]
}

// ProcessElement is input 0.
func (t *twoInputs[T, B, R]) ProcessElement(ts int64, v T) error {
	return t.first.ProcessElement(ts, v)
}

// InputAt implements op.MultiInput.
func (t *twoInputs[T, B, R]) InputAt(i int) any {
	if i == 0 {
		return t.first
	}
	return t.second
}

type input[T, R any] struct {
	o  *Op[R]
	fn func(*ReadOnlyContext[R], T) error
}

func (in *input[T, R]) ProcessElement(ts int64, v T) error {
	c := &in.o.ro.ReadOnlyContext
	c.TS = ts
	if err := in.fn(c, v); err != nil {
		return err
	}
	return c.TakeErr()
}

type bcInput[B, R any] struct {
	o  *Op[R]
	fn func(*Context[R], B) error
}

func (in *bcInput[B, R]) ProcessElement(ts int64, v B) error {
	c := &in.o.ro
	c.TS = ts
	if err := in.fn(c, v); err != nil {
		return err
	}
	return c.TakeErr()
}
