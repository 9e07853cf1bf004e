package async

import (
	"context"
	"sync/atomic"

	"github.com/weir-engine/weir/internal/clock"
)

// outcome is what a request hands to the task's goroutine.
type outcome[T, R any] struct {
	e        *entry[T, R]
	results  []R
	err      error
	timedOut bool
	attempts int
}

// request is one input in flight: its goroutine runs the attempts; the
// deadline timer races it, and whichever finishes first delivers.
type request[T, R any] struct {
	cancel    context.CancelFunc
	deadline  clock.Timer
	delivered atomic.Bool
}

// issue starts the request of e.
func (o *Operator[T, R]) issue(e *entry[T, R]) {
	ctx, cancel := context.WithCancel(o.reqCtx)
	req := &request[T, R]{cancel: cancel}
	e.req = req
	o.issued.Add(1)
	req.deadline = o.cfg.Clock.AfterFunc(o.cfg.Timeout, func() {
		o.deliver(req, outcome[T, R]{e: e, timedOut: true})
		cancel()
	})
	go o.attempt(ctx, req, e)
}

// attempt runs the function until its outcome is not to be retried.
func (o *Operator[T, R]) attempt(ctx context.Context, req *request[T, R], e *entry[T, R]) {
	for n := 1; ; n++ {
		res, err := o.cfg.Fn(ctx, e.in)
		if ctx.Err() != nil {
			return // timed out or the task ended: the outcome is moot
		}
		if !o.cfg.Retry.shouldRetry(n, res, err) {
			req.deadline.Stop()
			o.deliver(req, outcome[T, R]{e: e, results: res, err: err, attempts: n})
			return
		}
		o.retries.Add(1)
		wake := make(chan struct{})
		t := o.cfg.Clock.AfterFunc(o.cfg.Retry.Delay(n), func() { close(wake) })
		select {
		case <-wake:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// deliver hands the first outcome of req to the inbox; later ones (the
// deadline after a result, or the reverse) are dropped.
func (o *Operator[T, R]) deliver(req *request[T, R], out outcome[T, R]) {
	if !req.delivered.CompareAndSwap(false, true) {
		return
	}
	o.inbox.push(out)
	if !o.wakeQueued.Swap(true) {
		o.mailbox.Put(func() error {
			o.wakeQueued.Store(false)
			return o.drain()
		})
	}
}
