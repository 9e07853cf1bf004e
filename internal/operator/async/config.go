package async

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/codec"
)

// ErrTimeout fails a task whose request timed out when no timeout handler
// is set (Flink's default AsyncFunction.timeout).
var ErrTimeout = errors.New("async: request timed out")

// DefaultCapacity is the number of requests in flight when Config.Capacity
// is 0 (Flink's default of 100).
const DefaultCapacity = 100

// Func is the user's asynchronous function. It runs on a goroutine of its
// own and must return soon after ctx is cancelled (at the timeout, or when
// the task ends).
type Func[T, R any] func(ctx context.Context, in T) ([]R, error)

// Retry says when and how often a request is tried again.
type Retry[R any] struct {
	// MaxAttempts counts the first attempt: 0 or 1 means no retry.
	MaxAttempts int
	// Delay is the wait before attempt n+1, after attempt n (n from 1).
	Delay func(n int) time.Duration
	// IfError and IfResult decide whether an outcome is retried; with
	// neither set, every error is retried.
	IfError  func(error) bool
	IfResult func([]R) bool
}

// shouldRetry reports whether the outcome of attempt n is retried.
func (r *Retry[R]) shouldRetry(n int, res []R, err error) bool {
	if n >= r.MaxAttempts {
		return false
	}
	if r.IfError == nil && r.IfResult == nil {
		return err != nil
	}
	if err != nil {
		return r.IfError != nil && r.IfError(err)
	}
	return r.IfResult != nil && r.IfResult(res)
}

// Config configures the operator.
type Config[T, R any] struct {
	Fn Func[T, R]
	// Ordered emits results in input order.
	Ordered bool
	// Capacity bounds the queue: requests in flight, results held back by
	// order and watermarks waiting for them (DefaultCapacity when 0).
	Capacity int
	// Timeout is the deadline of every request, all attempts included.
	Timeout time.Duration
	// OnTimeout, when set, gives the results of a request that timed out;
	// it runs on the task's goroutine. Nil: the task fails with ErrTimeout.
	OnTimeout func(in T) ([]R, error)
	Retry     Retry[R]
	// Codec encodes inputs for checkpoints; nil: the operator cannot be
	// checkpointed while requests are in flight.
	Codec codec.Codec[T]
	// Clock runs deadlines and retry delays (clock.Real when nil).
	Clock clock.Clock
}

// Validate checks c and fills in defaults.
func (c *Config[T, R]) Validate() error {
	if c.Fn == nil {
		return errors.New("async: nil function")
	}
	if c.Capacity == 0 {
		c.Capacity = DefaultCapacity
	}
	if c.Capacity < 0 {
		return fmt.Errorf("async: capacity %d must be positive", c.Capacity)
	}
	if c.Timeout <= 0 {
		return fmt.Errorf("async: timeout %v must be positive", c.Timeout)
	}
	if c.Retry.MaxAttempts > 1 && c.Retry.Delay == nil {
		return errors.New("async: retry without a delay function")
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	return nil
}
