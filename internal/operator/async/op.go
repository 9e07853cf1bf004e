package async

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/weir-engine/weir/internal/op"
)

// errCancelled ends a wait of the task's goroutine when the task ends.
var errCancelled = errors.New("async: task cancelled while waiting for requests")

// Operator runs a Func for its input elements concurrently.
type Operator[T, R any] struct {
	cfg     Config[T, R]
	out     op.Output[R]
	mailbox op.Mailbox
	done    <-chan struct{}

	reqCtx    context.Context
	cancelAll context.CancelFunc

	q    queue[T, R]
	seq  int64
	live map[*entry[T, R]]struct{} // records not emitted, for snapshots

	inbox      *inbox[T, R]
	spare      []outcome[T, R]
	wakeQueued atomic.Bool
	closed     bool

	// Counters, readable from any goroutine (tests, metrics).
	issued, retries, timeouts atomic.Int64
}

// New returns the operator; cfg is validated.
func New[T, R any](cfg Config[T, R], out op.Output[R]) (*Operator[T, R], error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := &Operator[T, R]{cfg: cfg, out: out, live: make(map[*entry[T, R]]struct{}), inbox: newInbox[T, R]()}
	if cfg.Ordered {
		o.q = &ordered[T, R]{}
	} else {
		o.q = &unordered[T, R]{}
	}
	return o, nil
}

// Issued, Retries and Timeouts count the requests started (restored ones
// included), the attempts repeated and the deadlines hit.
func (o *Operator[T, R]) Issued() int64   { return o.issued.Load() }
func (o *Operator[T, R]) Retries() int64  { return o.retries.Load() }
func (o *Operator[T, R]) Timeouts() int64 { return o.timeouts.Load() }

// Open issues the requests restored from a checkpoint again. They may
// exceed the capacity for a while (a restore at a lower parallelism merges
// the queues of several subtasks).
func (o *Operator[T, R]) Open(ctx *op.Context) error {
	o.mailbox, o.done = ctx.Mailbox, ctx.Done
	o.reqCtx, o.cancelAll = context.WithCancel(context.Background())
	entries := ctx.Restored.List(stateName)
	if len(entries) == 0 {
		return nil
	}
	if o.cfg.Codec == nil {
		return errors.New("async: restored requests, but the input type has no codec")
	}
	for i, b := range entries {
		ts, v, err := decodeInput(o.cfg.Codec, b)
		if err != nil {
			return fmt.Errorf("async: restore request %d of %d: %w", i+1, len(entries), err)
		}
		if err := o.add(&entry[T, R]{ts: ts, in: v}); err != nil {
			return err
		}
	}
	return nil
}

// ProcessElement issues a request for v, after waiting for room.
func (o *Operator[T, R]) ProcessElement(ts int64, v T) error {
	for o.q.len() >= o.cfg.Capacity {
		if err := o.waitOne(); err != nil {
			return err
		}
	}
	return o.add(&entry[T, R]{ts: ts, in: v})
}

// ProcessWatermark queues the watermark behind the records before it.
func (o *Operator[T, R]) ProcessWatermark(wm int64) error {
	for o.q.len() >= o.cfg.Capacity {
		if err := o.waitOne(); err != nil {
			return err
		}
	}
	return o.q.add(&entry[T, R]{isWM: true, wm: wm}, o.emit)
}

func (o *Operator[T, R]) add(e *entry[T, R]) error {
	o.seq++
	e.seq = o.seq
	o.live[e] = struct{}{}
	o.issue(e)
	return o.q.add(e, o.emit)
}

// Finish waits until every request completed and its results left.
func (o *Operator[T, R]) Finish() error {
	for o.q.len() > 0 {
		if err := o.waitOne(); err != nil {
			return err
		}
	}
	return nil
}

// Close cancels the requests in flight; it does not wait for their
// goroutines, which return once the function honours its context.
func (o *Operator[T, R]) Close() error {
	o.closed = true
	if o.cancelAll != nil {
		o.cancelAll()
	}
	for e := range o.live {
		if e.req != nil {
			e.req.deadline.Stop()
		}
	}
	return nil
}

// waitOne blocks the task's goroutine until at least one outcome arrived,
// and takes the outcomes in.
func (o *Operator[T, R]) waitOne() error {
	select {
	case <-o.inbox.signal:
	case <-o.done:
		return errCancelled
	}
	return o.drain()
}

// drain takes in the outcomes that arrived and emits what they release.
func (o *Operator[T, R]) drain() error {
	if o.closed {
		return nil
	}
	batch := o.inbox.take(o.spare)
	defer func() {
		clear(batch)
		o.spare = batch
	}()
	for _, out := range batch {
		if err := o.complete(out); err != nil {
			return err
		}
	}
	return nil
}

func (o *Operator[T, R]) complete(out outcome[T, R]) error {
	e := out.e
	if _, ok := o.live[e]; !ok || e.done {
		return nil // emitted or dropped already
	}
	res, err := out.results, out.err
	if out.timedOut {
		o.timeouts.Add(1)
		if o.cfg.OnTimeout == nil {
			return fmt.Errorf("%w after %v", ErrTimeout, o.cfg.Timeout)
		}
		res, err = o.cfg.OnTimeout(e.in)
	}
	if err != nil {
		return fmt.Errorf("async function: %w", err)
	}
	e.done, e.results = true, res
	return o.q.complete(e, o.emit)
}

// emit sends an entry's results, or its watermark, downstream.
func (o *Operator[T, R]) emit(e *entry[T, R]) error {
	if e.isWM {
		return o.out.EmitWatermark(e.wm)
	}
	delete(o.live, e)
	for _, r := range e.results {
		if err := o.out.Collect(e.ts, r); err != nil {
			return err
		}
	}
	return nil
}
