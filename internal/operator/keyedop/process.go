package keyedop

import (
	"errors"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
	"github.com/weir-engine/weir/internal/state/keyed"
	"github.com/weir-engine/weir/internal/timer"
)

// ProcessFunction processes the elements of a keyed stream (package weir's
// KeyedProcessFunction).
type ProcessFunction[K comparable, T, R any] interface {
	ProcessElement(ctx *Context[K, R], v T) error
}

// TimerFunction is called when a timer the function registered fires
// (package weir's TimerFunction).
type TimerFunction[K comparable, R any] interface {
	OnTimer(ctx *Context[K, R], timestamp int64) error
}

// Hooks is the lifecycle of a keyed user function as its operator sees
// it: Open gets the keyed backend besides the context, so that package
// weir can open the function with its KeyedRuntimeContext.
type Hooks[K comparable] interface {
	Open(ctx *op.Context, backend *state.KeyedBackend[K]) error
	Finish() error
	Close() error
}

// TimerService registers timers for the current key (package weir's
// TimerService).
type TimerService interface {
	// CurrentProcessingTime is the wall clock in milliseconds.
	CurrentProcessingTime() int64
	// CurrentWatermark is the operator's event time in milliseconds.
	CurrentWatermark() int64
	// RegisterEventTimeTimer fires OnTimer when the watermark reaches ts.
	// Registering the same time twice for a key fires once.
	RegisterEventTimeTimer(ts int64)
	// RegisterProcessingTimeTimer fires OnTimer when the clock reaches ts.
	RegisterProcessingTimeTimer(ts int64)
	DeleteEventTimeTimer(ts int64)
	DeleteProcessingTimeTimer(ts int64)
}

// Context is what a process function sees of the element or timer at
// hand: its key, timestamp, the timer service and the outputs (package
// weir's KeyedContext).
type Context[K comparable, R any] struct {
	op     *processOp[K, R]
	ts     int64
	domain keyed.TimeDomain
	err    error
}

// Key is the current key.
func (c *Context[K, R]) Key() K { return c.op.Backend().CurrentKey() }

// Timestamp is the event timestamp of the element, or of the firing timer;
// ok is false for elements without one.
func (c *Context[K, R]) Timestamp() (ts int64, ok bool) { return c.ts, c.ts != op.NoTimestamp }

// TimeDomain says which clock fired the current timer (in OnTimer).
func (c *Context[K, R]) TimeDomain() keyed.TimeDomain { return c.domain }

// TimerService registers timers for the current key.
func (c *Context[K, R]) TimerService() TimerService { return timerService[K, R]{c.op} }

// Collect emits v with the current timestamp.
func (c *Context[K, R]) Collect(v R) {
	if c.err == nil {
		c.err = c.op.out.Collect(c.ts, v)
	}
}

// CollectWithTimestamp emits v with event timestamp ts.
func (c *Context[K, R]) CollectWithTimestamp(v R, ts int64) {
	if c.err == nil {
		c.err = c.op.out.Collect(ts, v)
	}
}

func (c *Context[K, R]) takeErr() error {
	err := c.err
	c.err = nil
	return err
}

// NewProcess returns the process operator of fn over the elements of each
// key(v), hashed to key groups by hash, emitting to out.
func NewProcess[K comparable, T, R any](fn ProcessFunction[K, T, R], key func(T) K, hash func(K) uint32, hooks Hooks[K], out op.Output[R]) any {
	p := newProcessOp[K, R](fn, hash, hooks, out)
	return &processInput[K, T, R]{processOp: p, fn: fn, key: key}
}

// processOp is the input-type-independent part of the process operator,
// so that Context needs no input type parameter.
type processOp[K comparable, R any] struct {
	keyed.Runtime[K, struct{}]
	out     op.Output[R]
	fn      any
	hooks   Hooks[K]
	kctx    Context[K, R]
	onTimer TimerFunction[K, R]
}

func newProcessOp[K comparable, R any](fn any, hash func(K) uint32, hooks Hooks[K], out op.Output[R]) *processOp[K, R] {
	p := &processOp[K, R]{out: out, fn: fn, hooks: hooks}
	p.SetHash(hash)
	return p
}

func (p *processOp[K, R]) Open(ctx *op.Context) error {
	if err := p.OpenState(ctx); err != nil {
		return err
	}
	p.kctx.op = p
	p.onTimer, _ = p.fn.(TimerFunction[K, R])
	p.SetOnTimer(func(t timer.Timer[K, struct{}], d keyed.TimeDomain) error {
		if p.onTimer == nil {
			return nil
		}
		p.kctx.ts, p.kctx.domain = t.Timestamp, d
		if d == keyed.ProcessingTime {
			p.kctx.ts = op.NoTimestamp
		}
		if err := p.onTimer.OnTimer(&p.kctx, t.Timestamp); err != nil {
			return err
		}
		return p.kctx.takeErr()
	})
	return p.hooks.Open(ctx, p.Backend())
}

func (p *processOp[K, R]) ProcessWatermark(wm int64) error {
	if err := p.AdvanceWatermark(wm); err != nil {
		return err
	}
	return p.out.EmitWatermark(wm)
}

func (p *processOp[K, R]) Finish() error { return p.hooks.Finish() }
func (p *processOp[K, R]) Close() error {
	return errors.Join(p.hooks.Close(), p.CloseState())
}

// processInput adds the typed input to processOp.
type processInput[K comparable, T, R any] struct {
	*processOp[K, R]
	fn  ProcessFunction[K, T, R]
	key func(T) K
}

func (p *processInput[K, T, R]) ProcessElement(ts int64, v T) error {
	return p.process(ts, -1, v)
}

// process processes v, whose key is in key group group (-1: to be
// computed).
func (p *processInput[K, T, R]) process(ts int64, group int, v T) error {
	p.SetKeyInGroup(p.key(v), group)
	p.kctx.ts, p.kctx.domain = ts, keyed.EventTime
	if err := p.fn.ProcessElement(&p.kctx, v); err != nil {
		return err
	}
	if err := p.kctx.takeErr(); err != nil {
		return err
	}
	return p.Backend().Err()
}

// CollectBatch implements op.BatchInput: the records of a network buffer
// or a chained producer's batch, one key at a time.
func (p *processInput[K, T, R]) CollectBatch(ts []int64, vs []T) error {
	for i := range vs {
		if err := p.process(op.TimestampAt(ts, i), -1, vs[i]); err != nil {
			return err
		}
	}
	return nil
}

// CollectKeyedBatch implements op.KeyedBatchInput.
func (p *processInput[K, T, R]) CollectKeyedBatch(ts []int64, groups []uint16, vs []T) error {
	for i := range vs {
		if err := p.process(op.TimestampAt(ts, i), int(groups[i]), vs[i]); err != nil {
			return err
		}
	}
	return nil
}

type timerService[K comparable, R any] struct{ p *processOp[K, R] }

func (s timerService[K, R]) CurrentProcessingTime() int64 { return s.p.Context().ProcessingTime() }
func (s timerService[K, R]) CurrentWatermark() int64      { return s.p.Timers().CurrentWatermark() }
func (s timerService[K, R]) RegisterEventTimeTimer(ts int64) {
	s.p.Timers().RegisterEventTimeTimer(s.p.Backend().CurrentKey(), struct{}{}, ts)
}
func (s timerService[K, R]) RegisterProcessingTimeTimer(ts int64) {
	s.p.RegisterProcessingTimer(struct{}{}, ts)
}
func (s timerService[K, R]) DeleteEventTimeTimer(ts int64) {
	s.p.Timers().DeleteEventTimeTimer(s.p.Backend().CurrentKey(), struct{}{}, ts)
}
func (s timerService[K, R]) DeleteProcessingTimeTimer(ts int64) {
	s.p.Timers().DeleteProcessingTimeTimer(s.p.Backend().CurrentKey(), struct{}{}, ts)
}
