package rpc

import (
	"context"
	"sync"
)

// Future is the answer of an asynchronous call: a value or an error, set
// once by the callee.
type Future[T any] struct {
	done chan struct{}
	mu   struct {
		sync.Mutex
		set       bool
		callbacks []func(T, error)
	}
	val T
	err error
}

// NewFuture returns a future that Complete sets.
func NewFuture[T any]() *Future[T] { return &Future[T]{done: make(chan struct{})} }

// Completed returns a future already set to v and err.
func Completed[T any](v T, err error) *Future[T] {
	f := NewFuture[T]()
	f.Complete(v, err)
	return f
}

// Failed returns a future already set to err.
func Failed[T any](err error) *Future[T] {
	var zero T
	return Completed(zero, err)
}

// Complete sets the future and runs its callbacks on the calling goroutine,
// in the order they were registered. It reports false, and changes
// nothing, when the future was already set.
func (f *Future[T]) Complete(v T, err error) bool {
	f.mu.Lock()
	if f.mu.set {
		f.mu.Unlock()
		return false
	}
	f.mu.set = true
	f.val, f.err = v, err
	cbs := f.mu.callbacks
	f.mu.callbacks = nil
	close(f.done)
	f.mu.Unlock()
	for _, cb := range cbs {
		cb(v, err)
	}
	return true
}

// OnComplete runs fn with the answer once the future is set: at once on the
// calling goroutine when it already is, otherwise on the goroutine that
// sets it. fn must not block.
func (f *Future[T]) OnComplete(fn func(T, error)) {
	f.mu.Lock()
	if !f.mu.set {
		f.mu.callbacks = append(f.mu.callbacks, fn)
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	fn(f.val, f.err)
}

// Done is closed once the future is set.
func (f *Future[T]) Done() <-chan struct{} { return f.done }

// Wait waits for the answer or for ctx to end. Event loops use OnComplete
// instead.
func (f *Future[T]) Wait(ctx context.Context) (T, error) {
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Then returns a future set to fn of f's value once f is set, or to f's
// error.
func Then[T, U any](f *Future[T], fn func(T) (U, error)) *Future[U] {
	out := NewFuture[U]()
	f.OnComplete(func(v T, err error) {
		if err != nil {
			var zero U
			out.Complete(zero, err)
			return
		}
		out.Complete(fn(v))
	})
	return out
}
