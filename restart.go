package weir

import (
	"time"

	"github.com/weir-engine/weir/internal/runner"
)

// RestartStrategy says whether and when a failed job restarts. Without
// checkpoints a restarted job starts from scratch; with them, from the
// latest completed checkpoint.
type RestartStrategy struct{ r runner.Restart }

func (r RestartStrategy) String() string { return r.r.String() }

// NoRestart fails the job at its first failure (the default).
func NoRestart() RestartStrategy {
	return RestartStrategy{runner.NoRestart()}
}

// FixedDelayRestart restarts up to attempts times, delay apart.
func FixedDelayRestart(attempts int, delay time.Duration) RestartStrategy {
	return RestartStrategy{runner.FixedDelay(attempts, delay)}
}

// ExponentialDelayRestart restarts forever, the delay growing from initial
// by multiplier up to max, with ±jitter (a fraction, e.g. 0.1) of random
// spread; after resetAfter without failures it starts over at initial.
// Unrecoverable failures (see ErrUnrecoverable) fail the job all the same.
func ExponentialDelayRestart(initial, max time.Duration, multiplier, jitter float64, resetAfter time.Duration) RestartStrategy {
	return RestartStrategy{runner.ExponentialDelay(initial, max, multiplier, jitter, resetAfter)}
}

// FailureRateRestart restarts after delay while fewer than maxFailures
// failures happened within interval.
func FailureRateRestart(maxFailures int, interval, delay time.Duration) RestartStrategy {
	return RestartStrategy{runner.FailureRate(maxFailures, interval, delay)}
}

// WithRestartStrategy sets the restart strategy.
func WithRestartStrategy(r RestartStrategy) Option { return func(o *Options) { o.Restart = r } }

// ErrUnrecoverable marks an error that no restart can fix: a user function
// that returns an error wrapping it (fmt.Errorf("%w: ...",
// weir.ErrUnrecoverable)) fails the job at once, whatever the restart
// strategy. Errors of missing files and denied permissions count as
// unrecoverable too; a full disk does not.
var ErrUnrecoverable = runner.ErrUnrecoverable

// DefaultAttempts is the number of restarts in a row the default strategy
// of a checkpointed job allows before the job fails.
const DefaultAttempts = runner.DefaultAttempts
