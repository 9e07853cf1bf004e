package keyedop

import (
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state/opstate"
)

// BroadcastFunction processes a keyed stream connected to a broadcast
// stream (package weir's KeyedBroadcastProcessFunction). Its timers fire
// OnTimer with a plain Context, if it implements TimerFunction.
type BroadcastFunction[K comparable, T, B, R any] interface {
	ProcessElement(ctx *BroadcastReadContext[K, R], v T) error
	ProcessBroadcastElement(ctx *BroadcastContext[K, R], v B) error
}

// BroadcastReadContext is the Context of an element of the keyed input,
// which may also read the broadcast states.
type BroadcastReadContext[K comparable, R any] struct {
	*Context[K, R]
	o *broadcastOp[K, R]
}

// ReadOnlyBroadcastStates returns the broadcast states, to read.
func (c *BroadcastReadContext[K, R]) ReadOnlyBroadcastStates() *opstate.BroadcastStates {
	return c.o.states
}

// BroadcastContext is what the function sees of a broadcast element: its
// timestamp, the outputs, the time, the broadcast states to read and
// write, and the keyed state of every key (ApplyToKeyedState). There is
// no current key.
type BroadcastContext[K comparable, R any] struct {
	o   *broadcastOp[K, R]
	ts  int64
	err error
}

// Timestamp is the event timestamp of the element; ok is false for
// elements without one.
func (c *BroadcastContext[K, R]) Timestamp() (ts int64, ok bool) { return c.ts, c.ts != op.NoTimestamp }

// Collect emits v with the element's timestamp.
func (c *BroadcastContext[K, R]) Collect(v R) { c.CollectWithTimestamp(v, c.ts) }

// CollectWithTimestamp emits v with event timestamp ts.
func (c *BroadcastContext[K, R]) CollectWithTimestamp(v R, ts int64) {
	if c.err == nil {
		c.err = c.o.out.Collect(ts, v)
	}
}

// CurrentWatermark is the operator's event time in milliseconds.
func (c *BroadcastContext[K, R]) CurrentWatermark() int64 { return c.o.Timers().CurrentWatermark() }

// CurrentProcessingTime is the wall clock in milliseconds.
func (c *BroadcastContext[K, R]) CurrentProcessingTime() int64 { return c.o.Context().ProcessingTime() }

// BroadcastStates returns the broadcast states, to read and write.
func (c *BroadcastContext[K, R]) BroadcastStates() *opstate.BroadcastStates { return c.o.states }

// ReadOnlyBroadcastStates returns the broadcast states, to read.
func (c *BroadcastContext[K, R]) ReadOnlyBroadcastStates() *opstate.BroadcastStates {
	return c.o.states
}

// ApplyToKeyedState calls fn for every key of this subtask that has keyed
// state called name, with that key current, so that the function's state
// handles read and write that key's state (Flink's applyToKeyedState).
func (c *BroadcastContext[K, R]) ApplyToKeyedState(name string, fn func(key K) error) error {
	return c.o.Backend().ApplyToAllKeys(name, fn)
}

func (c *BroadcastContext[K, R]) sideOutput(id string) (any, int64) {
	return c.o.Context().SideOutputs[id], c.ts
}

func (c *BroadcastContext[K, R]) recordErr(err error) {
	if c.err == nil {
		c.err = err
	}
}

// NewBroadcast returns the keyed broadcast process operator of fn: input
// 0 is the keyed stream (keyed by key), input 1 the broadcast stream, with
// the broadcast states declared.
func NewBroadcast[K comparable, T, B, R any](fn BroadcastFunction[K, T, B, R], key func(T) K, hash func(K) uint32, declared []string, hooks Hooks[K], out op.Output[R]) any {
	o := &broadcastOp[K, R]{processOp: newProcessOp[K, R](fn, hash, hooks, out), declared: declared}
	o.read.o, o.write.o = o, o
	return &broadcastInputs[K, T, B, R]{
		broadcastOp: o,
		first:       &coInput[K, T, R]{p: o.processOp, key: key, process: func(ctx *Context[K, R], v T) error { o.read.Context = ctx; return fn.ProcessElement(&o.read, v) }},
		second:      &broadcastSide[K, B, R]{o: o, process: fn.ProcessBroadcastElement},
	}
}

// broadcastOp is a process operator with broadcast states besides its
// keyed state and timers.
type broadcastOp[K comparable, R any] struct {
	*processOp[K, R]
	declared []string
	states   *opstate.BroadcastStates
	read     BroadcastReadContext[K, R]
	write    BroadcastContext[K, R]
}

// Open restores the broadcast states, then the keyed state, and opens the
// function.
func (o *broadcastOp[K, R]) Open(ctx *op.Context) error {
	o.states = opstate.NewBroadcastStates(ctx.Restored, o.declared)
	return o.processOp.Open(ctx)
}

// SnapshotState snapshots the keyed state and timers, and the broadcast
// states.
func (o *broadcastOp[K, R]) SnapshotState(id int64) (*op.Snapshot, error) {
	lists, err := o.states.Snapshot()
	if err != nil {
		return nil, err
	}
	s, err := o.processOp.SnapshotState(id)
	if err != nil {
		return nil, err
	}
	if s == nil {
		s = &op.Snapshot{}
	}
	s.Lists = append(s.Lists, lists...)
	return s, nil
}

type broadcastInputs[K comparable, T, B, R any] struct {
	*broadcastOp[K, R]
	first  *coInput[K, T, R]
	second *broadcastSide[K, B, R]
}

// ProcessElement is input 0.
func (b *broadcastInputs[K, T, B, R]) ProcessElement(ts int64, v T) error {
	return b.first.ProcessElement(ts, v)
}

// InputAt implements op.MultiInput.
func (b *broadcastInputs[K, T, B, R]) InputAt(i int) any {
	if i == 0 {
		return b.first
	}
	return b.second
}

// broadcastSide feeds the broadcast input's elements to the function,
// without a current key.
type broadcastSide[K comparable, B, R any] struct {
	o       *broadcastOp[K, R]
	process func(ctx *BroadcastContext[K, R], v B) error
}

func (in *broadcastSide[K, B, R]) ProcessElement(ts int64, v B) error {
	c := &in.o.write
	c.ts = ts
	if err := in.process(c, v); err != nil {
		return err
	}
	err := c.err
	c.err = nil
	if err != nil {
		return err
	}
	return in.o.Backend().Err()
}
