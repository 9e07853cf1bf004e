package weir

import (
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state/keyed"
	"github.com/weir-engine/weir/internal/timer"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// KeyedProcessFunction processes the elements of a keyed stream with keyed
// state and timers. It may also implement TimerFunction (to be called when
// its timers fire), KeyedOpener or Opener, Finisher and Closer.
type KeyedProcessFunction[K comparable, T, R any] interface {
	ProcessElement(ctx *KeyedContext[K, R], v T) error
}

// TimerFunction is called when a timer the function registered fires.
type TimerFunction[K comparable, R any] interface {
	OnTimer(ctx *KeyedContext[K, R], timestamp int64) error
}

// TimerService registers timers for the current key.
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

// KeyedContext is what a process function sees of the element or timer at
// hand: its key, timestamp, the timer service and the outputs.
type KeyedContext[K comparable, R any] struct {
	op     *processOp[K, R]
	ts     int64
	domain TimeDomain
	err    error
}

// Key is the current key.
func (c *KeyedContext[K, R]) Key() K { return c.op.Backend().CurrentKey() }

// Timestamp is the event timestamp of the element, or of the firing timer;
// ok is false for elements without one.
func (c *KeyedContext[K, R]) Timestamp() (ts int64, ok bool) { return c.ts, c.ts != op.NoTimestamp }

// TimeDomain says which clock fired the current timer (in OnTimer).
func (c *KeyedContext[K, R]) TimeDomain() TimeDomain { return c.domain }

// TimerService registers timers for the current key.
func (c *KeyedContext[K, R]) TimerService() TimerService { return timerService[K, R]{c.op} }

// Collect emits v with the current timestamp.
func (c *KeyedContext[K, R]) Collect(v R) {
	if c.err == nil {
		c.err = c.op.out.Collect(c.ts, v)
	}
}

// CollectWithTimestamp emits v with event timestamp ts.
func (c *KeyedContext[K, R]) CollectWithTimestamp(v R, ts int64) {
	if c.err == nil {
		c.err = c.op.out.Collect(ts, v)
	}
}

func (c *KeyedContext[K, R]) sideOutput(id string) (any, int64) {
	return c.op.Context().SideOutputs[id], c.ts
}

func (c *KeyedContext[K, R]) recordErr(err error) {
	if c.err == nil {
		c.err = err
	}
}

// SideOutputContext is a context that can emit to side outputs.
type SideOutputContext interface {
	sideOutput(id string) (out any, ts int64)
	recordErr(err error)
}

// OutputTag names a side output carrying elements of type S.
type OutputTag[S any] struct{ id string }

// NewOutputTag returns the tag with the given id; ids must be unique per
// program.
func NewOutputTag[S any](id string) OutputTag[S] { return OutputTag[S]{id: id} }

// ID returns the tag's id.
func (t OutputTag[S]) ID() string { return t.id }

// Output emits v to the side output tag, with the context's timestamp.
// Emitting to a tag that no stream consumes drops v.
func Output[S any](ctx SideOutputContext, tag OutputTag[S], v S) {
	out, ts := ctx.sideOutput(tag.id)
	if out == nil {
		return
	}
	o, ok := out.(op.Output[S])
	if !ok {
		ctx.recordErr(fmt.Errorf("weir: side output %q does not carry %T", tag.id, v))
		return
	}
	if err := o.Collect(ts, v); err != nil {
		ctx.recordErr(err)
	}
}

// SideOutput returns the side output tag of the operator that produced s.
func SideOutput[S, T any](s DataStream[T], tag OutputTag[S]) DataStream[S] {
	if !s.ok() {
		return invalid[S](s.env, errors.New("weir: SideOutput of an invalid stream"))
	}
	if tag.id == "" {
		return invalid[S](s.env, errors.New("weir: SideOutput: tag has no id"))
	}
	return derive[S](s.env, &graph.Transformation{
		Kind: graph.KindSideOutput, Name: "side:" + tag.id, Inputs: []*graph.Transformation{s.t},
		OutType: typeinfo.New[S](), SideTag: tag.id,
	})
}

// Process applies a keyed process function to every element.
func Process[K comparable, T, R any](ks KeyedStream[K, T], fn KeyedProcessFunction[K, T, R]) DataStream[R] {
	if err := checkFn(ks.DataStream, "Process", fn); err != nil {
		return invalid[R](ks.env, err)
	}
	acc := ks.env.accumulators
	return newKeyedOperator[K, T, R](ks, "KeyedProcess", func(out any) (any, error) {
		fn := instance(fn)
		p := &processOp[K, R]{out: out.(op.Output[R]), fn: fn, acc: acc}
		p.SetHash(ks.hash)
		return &processInput[K, T, R]{processOp: p, fn: fn, key: ks.key}, nil
	})
}

// processOp is the input-type-independent part of the process operator,
// so that KeyedContext needs no input type parameter.
type processOp[K comparable, R any] struct {
	keyed.Runtime[K, struct{}]
	out     op.Output[R]
	fn      any
	acc     *accumulators
	kctx    KeyedContext[K, R]
	onTimer TimerFunction[K, R]
}

func (p *processOp[K, R]) Open(ctx *op.Context) error {
	if err := p.OpenState(ctx); err != nil {
		return err
	}
	p.kctx.op = p
	p.onTimer, _ = p.fn.(TimerFunction[K, R])
	p.SetOnTimer(func(t timer.Timer[K, struct{}], d TimeDomain) error {
		if p.onTimer == nil {
			return nil
		}
		p.kctx.ts, p.kctx.domain = t.Timestamp, d
		if d == ProcessingTime {
			p.kctx.ts = op.NoTimestamp
		}
		if err := p.onTimer.OnTimer(&p.kctx, t.Timestamp); err != nil {
			return err
		}
		return p.kctx.takeErr()
	})
	rc := newRuntimeContext(ctx, p.acc)
	switch o := p.fn.(type) {
	case KeyedOpener[K]:
		return o.Open(&KeyedRuntimeContext[K]{RuntimeContext: rc, backend: p.Backend()})
	case Opener:
		return o.Open(rc)
	}
	return nil
}

func (p *processOp[K, R]) ProcessWatermark(wm int64) error {
	if err := p.AdvanceWatermark(wm); err != nil {
		return err
	}
	return p.out.EmitWatermark(wm)
}

func (p *processOp[K, R]) Finish() error { return udf{fn: p.fn}.Finish() }
func (p *processOp[K, R]) Close() error {
	return errors.Join(udf{fn: p.fn}.Close(), p.CloseState())
}

func (c *KeyedContext[K, R]) takeErr() error {
	err := c.err
	c.err = nil
	return err
}

// processInput adds the typed input to processOp.
type processInput[K comparable, T, R any] struct {
	*processOp[K, R]
	fn  KeyedProcessFunction[K, T, R]
	key func(T) K
}

func (p *processInput[K, T, R]) ProcessElement(ts int64, v T) error {
	p.SetKey(p.key(v))
	p.kctx.ts, p.kctx.domain = ts, EventTime
	if err := p.fn.ProcessElement(&p.kctx, v); err != nil {
		return err
	}
	if err := p.kctx.takeErr(); err != nil {
		return err
	}
	return p.Backend().Err()
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
