package weir

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/async"
)

// ErrAsyncTimeout fails a job whose asynchronous request timed out when no
// timeout handler was given (WithAsyncTimeoutHandler).
var ErrAsyncTimeout = async.ErrTimeout

// AsyncOption configures AsyncWait and AsyncWaitOrdered.
type AsyncOption func(*asyncSettings)

type asyncSettings struct {
	capacity  int
	retry     AsyncRetryStrategy
	onTimeout any // func(T) ([]R, error)
}

// WithAsyncCapacity bounds the requests in flight (and results held back
// by order); at capacity the operator waits, back-pressuring its input.
// The default is 100, as Flink's.
func WithAsyncCapacity(n int) AsyncOption { return func(s *asyncSettings) { s.capacity = n } }

// WithAsyncTimeoutHandler gives the results of a request that timed out
// (Flink's AsyncFunction.timeout); it runs on the task's goroutine, so it
// must not block. An error it returns fails the job. Without it a timeout
// fails the job with ErrAsyncTimeout.
func WithAsyncTimeoutHandler[T, R any](h func(in T) ([]R, error)) AsyncOption {
	return func(s *asyncSettings) { s.onTimeout = h }
}

// WithAsyncRetry retries requests as the strategy says.
func WithAsyncRetry(r AsyncRetryStrategy) AsyncOption { return func(s *asyncSettings) { s.retry = r } }

// AsyncRetryStrategy says when and after what delay a request is tried
// again (Flink's AsyncRetryStrategies). Build it with FixedDelayRetry or
// ExponentialBackoffRetry, then narrow it with IfError or RetryIfResult;
// without either, every error is retried.
type AsyncRetryStrategy struct {
	maxAttempts int
	delay       func(n int) time.Duration
	ifError     func(error) bool
	ifResult    any // func([]R) bool
}

// FixedDelayRetry makes up to maxAttempts attempts (the first included),
// delay apart.
func FixedDelayRetry(maxAttempts int, delay time.Duration) AsyncRetryStrategy {
	return AsyncRetryStrategy{maxAttempts: maxAttempts, delay: func(int) time.Duration { return delay }}
}

// ExponentialBackoffRetry makes up to maxAttempts attempts; the first
// retry waits initial, each next one multiplier times longer, at most max.
func ExponentialBackoffRetry(maxAttempts int, initial, max time.Duration, multiplier float64) AsyncRetryStrategy {
	return AsyncRetryStrategy{maxAttempts: maxAttempts, delay: func(n int) time.Duration {
		d := float64(initial) * math.Pow(multiplier, float64(n-1))
		if d > float64(max) {
			return max
		}
		return time.Duration(d)
	}}
}

// IfError retries only the errors pred accepts.
func (r AsyncRetryStrategy) IfError(pred func(error) bool) AsyncRetryStrategy {
	r.ifError = pred
	return r
}

// RetryIfResult retries also the results pred accepts (an empty answer
// from a replica that lags behind, say).
func RetryIfResult[R any](r AsyncRetryStrategy, pred func([]R) bool) AsyncRetryStrategy {
	r.ifResult = pred
	return r
}

// AsyncWait calls fn for every element, many at once, and emits the
// results as the calls complete (Flink's AsyncDataStream.unorderedWait),
// but never across a watermark: results of elements before a watermark
// leave before it, those after it after it. fn runs on a goroutine of its
// own per element and must return soon after ctx is cancelled, which
// happens at the timeout (the deadline of all attempts of the element) and
// when the task ends. An error fn returns (after retries) fails the job.
// Results are emitted on the task's goroutine with the element's
// timestamp. Requests in flight are part of checkpoints and issued again
// on restore, so T needs a codec when checkpointing is on.
func AsyncWait[T, R any](s DataStream[T], fn func(ctx context.Context, in T) ([]R, error), timeout time.Duration, opts ...AsyncOption) DataStream[R] {
	return asyncWait(s, "AsyncWait", false, fn, timeout, opts)
}

// AsyncWaitOrdered is AsyncWait emitting results in the order of their
// elements (Flink's AsyncDataStream.orderedWait).
func AsyncWaitOrdered[T, R any](s DataStream[T], fn func(ctx context.Context, in T) ([]R, error), timeout time.Duration, opts ...AsyncOption) DataStream[R] {
	return asyncWait(s, "AsyncWaitOrdered", true, fn, timeout, opts)
}

func asyncWait[T, R any](s DataStream[T], name string, ordered bool, fn func(context.Context, T) ([]R, error), timeout time.Duration, opts []AsyncOption) DataStream[R] {
	if err := checkFn(s, name, fn); err != nil {
		return invalid[R](s.env, err)
	}
	cfg, err := asyncConfig[T, R](ordered, fn, timeout, opts)
	if err != nil {
		return invalid[R](s.env, fmt.Errorf("weir: %s: %w", name, err))
	}
	return newOperator[T, R](s, name, func(out any) (any, error) {
		c := cfg
		return async.New(c, out.(op.Output[R]))
	})
}

// asyncConfig turns the options into the operator's configuration,
// refusing handlers and predicates of other types than the stream's.
func asyncConfig[T, R any](ordered bool, fn func(context.Context, T) ([]R, error), timeout time.Duration, opts []AsyncOption) (async.Config[T, R], error) {
	var s asyncSettings
	for _, o := range opts {
		o(&s)
	}
	cfg := async.Config[T, R]{Fn: fn, Ordered: ordered, Capacity: s.capacity, Timeout: timeout,
		Retry: async.Retry[R]{MaxAttempts: s.retry.maxAttempts, Delay: s.retry.delay, IfError: s.retry.ifError}}
	if s.onTimeout != nil {
		h, ok := s.onTimeout.(func(T) ([]R, error))
		if !ok {
			return cfg, fmt.Errorf("timeout handler is %T, want func(%v) ([]%v, error)", s.onTimeout, reflect.TypeFor[T](), reflect.TypeFor[R]())
		}
		cfg.OnTimeout = h
	}
	if s.retry.ifResult != nil {
		p, ok := s.retry.ifResult.(func([]R) bool)
		if !ok {
			return cfg, fmt.Errorf("retry result predicate is %T, want func([]%v) bool", s.retry.ifResult, reflect.TypeFor[R]())
		}
		cfg.Retry.IfResult = p
	}
	if c, err := codec.For[T](); err == nil {
		cfg.Codec = c
	}
	if s.capacity < 0 {
		return cfg, fmt.Errorf("capacity %d must be positive", s.capacity)
	}
	err := cfg.Validate()
	return cfg, err
}
