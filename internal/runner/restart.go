package runner

import (
	"math/rand/v2"
	"time"

	"github.com/weir-engine/weir/internal/scheduler"
)

// Restart names a restart strategy and makes a fresh instance of it for
// every job (the strategies count failures). The zero value is "none", or
// the checkpointed default for a job with checkpoints.
type Restart struct {
	name string
	make func() scheduler.RestartStrategy
}

// String is the strategy's name; empty for the zero value.
func (r Restart) String() string { return r.name }

// NoRestart fails the job at its first failure.
func NoRestart() Restart {
	return Restart{"none", func() scheduler.RestartStrategy { return scheduler.NoRestart{} }}
}

// FixedDelay restarts up to attempts times, delay apart.
func FixedDelay(attempts int, delay time.Duration) Restart {
	return Restart{"fixed-delay", func() scheduler.RestartStrategy {
		return &scheduler.FixedDelay{Attempts: attempts, Delay: delay}
	}}
}

// ExponentialDelay restarts forever with a growing, jittered delay (see
// weir.ExponentialDelayRestart).
func ExponentialDelay(initial, max time.Duration, multiplier, jitter float64, resetAfter time.Duration) Restart {
	return Restart{"exponential-delay", func() scheduler.RestartStrategy {
		return &scheduler.ExponentialDelay{Initial: initial, Max: max, Multiplier: multiplier, Jitter: jitter, ResetAfter: resetAfter, Rand: rand.Float64}
	}}
}

// FailureRate restarts after delay while fewer than maxFailures failures
// happened within interval.
func FailureRate(maxFailures int, interval, delay time.Duration) Restart {
	return Restart{"failure-rate", func() scheduler.RestartStrategy {
		return &scheduler.FailureRate{MaxFailures: maxFailures, Interval: interval, Delay: delay}
	}}
}

// ErrUnrecoverable marks an error that no restart can fix.
var ErrUnrecoverable = scheduler.ErrUnrecoverable

// DefaultAttempts is the number of restarts in a row the default strategy
// of a checkpointed job allows before the job fails.
const DefaultAttempts = 10

// strategy returns the scheduler's strategy. A checkpointed job without a
// strategy of its own gets Flink's default, exponential delay from 1 s to
// 1 min (x1.5, ±10%, reset after an hour without failures), bounded here
// to DefaultAttempts restarts in a row, so a failure that keeps coming
// back ends the job within two minutes instead of looping forever.
func (r Restart) strategy(checkpointing bool) scheduler.RestartStrategy {
	switch {
	case r.make != nil:
		return r.make()
	case checkpointing:
		return &scheduler.ExponentialDelay{Initial: time.Second, Max: time.Minute, Multiplier: 1.5, Jitter: 0.1,
			ResetAfter: time.Hour, Attempts: DefaultAttempts, Rand: rand.Float64}
	}
	return scheduler.NoRestart{}
}
