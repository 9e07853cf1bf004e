package weir

import (
	"math/rand/v2"
	"time"

	"github.com/weir-engine/weir/internal/scheduler"
)

// RestartStrategy says whether and when a failed job restarts. Without
// checkpoints a restarted job starts from scratch; with them, from the
// latest completed checkpoint.
type RestartStrategy struct {
	name string
	make func() scheduler.RestartStrategy
}

func (r RestartStrategy) String() string { return r.name }

// NoRestart fails the job at its first failure (the default).
func NoRestart() RestartStrategy {
	return RestartStrategy{"none", func() scheduler.RestartStrategy { return scheduler.NoRestart{} }}
}

// FixedDelayRestart restarts up to attempts times, delay apart.
func FixedDelayRestart(attempts int, delay time.Duration) RestartStrategy {
	return RestartStrategy{"fixed-delay", func() scheduler.RestartStrategy {
		return &scheduler.FixedDelay{Attempts: attempts, Delay: delay}
	}}
}

// ExponentialDelayRestart restarts forever, the delay growing from initial
// by multiplier up to max, with ±jitter (a fraction, e.g. 0.1) of random
// spread; after resetAfter without failures it starts over at initial.
// Unrecoverable failures (see ErrUnrecoverable) fail the job all the same.
func ExponentialDelayRestart(initial, max time.Duration, multiplier, jitter float64, resetAfter time.Duration) RestartStrategy {
	return RestartStrategy{"exponential-delay", func() scheduler.RestartStrategy {
		return &scheduler.ExponentialDelay{Initial: initial, Max: max, Multiplier: multiplier, Jitter: jitter, ResetAfter: resetAfter, Rand: rand.Float64}
	}}
}

// FailureRateRestart restarts after delay while fewer than maxFailures
// failures happened within interval.
func FailureRateRestart(maxFailures int, interval, delay time.Duration) RestartStrategy {
	return RestartStrategy{"failure-rate", func() scheduler.RestartStrategy {
		return &scheduler.FailureRate{MaxFailures: maxFailures, Interval: interval, Delay: delay}
	}}
}

// WithRestartStrategy sets the restart strategy.
func WithRestartStrategy(r RestartStrategy) Option { return func(o *Options) { o.Restart = r } }

// ErrUnrecoverable marks an error that no restart can fix: a user function
// that returns an error wrapping it (fmt.Errorf("%w: ...",
// weir.ErrUnrecoverable)) fails the job at once, whatever the restart
// strategy. Errors of missing files and denied permissions count as
// unrecoverable too; a full disk does not.
var ErrUnrecoverable = scheduler.ErrUnrecoverable

// DefaultAttempts is the number of restarts in a row the default strategy
// of a checkpointed job allows before the job fails.
const DefaultAttempts = 10

// strategy returns the scheduler's strategy. A checkpointed job without a
// strategy of its own gets Flink's default, exponential delay from 1 s to
// 1 min (x1.5, ±10%, reset after an hour without failures), bounded here
// to DefaultAttempts restarts in a row, so a failure that keeps coming
// back ends the job within two minutes instead of looping forever.
func (r RestartStrategy) strategy(checkpointing bool) scheduler.RestartStrategy {
	switch {
	case r.make != nil:
		return r.make()
	case checkpointing:
		return &scheduler.ExponentialDelay{Initial: time.Second, Max: time.Minute, Multiplier: 1.5, Jitter: 0.1,
			ResetAfter: time.Hour, Attempts: DefaultAttempts, Rand: rand.Float64}
	}
	return scheduler.NoRestart{}
}
