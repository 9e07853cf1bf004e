package weir

import (
	"math"
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

// strategy returns the scheduler's strategy; checkpointing turns the
// default into Flink's default with checkpoints.
func (r RestartStrategy) strategy(checkpointing bool) scheduler.RestartStrategy {
	switch {
	case r.make != nil:
		return r.make()
	case checkpointing:
		return &scheduler.FixedDelay{Attempts: math.MaxInt32, Delay: time.Second}
	}
	return scheduler.NoRestart{}
}
