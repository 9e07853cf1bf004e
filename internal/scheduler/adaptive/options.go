package adaptive

import (
	"errors"
	"fmt"
	"time"
)

// Mode selects how the scheduler uses the slots it gets.
type Mode string

// Modes.
const (
	// Default runs every vertex at most at its configured parallelism.
	Default Mode = "default"
	// Reactive (FLIP-159) runs every vertex at as many slots as there are,
	// up to its max parallelism, starting as soon as it can and never
	// giving up on waiting.
	Reactive Mode = "reactive"
)

// Options configure the adaptive scheduler; the zero value takes every
// default (WithDefaults).
type Options struct {
	// Mode is Default or Reactive.
	Mode Mode
	// ResourceWaitTimeout is how long WaitingForResources waits for the
	// slots the job needs at least before failing it
	// (jobmanager.adaptive-scheduler.resource-wait-timeout, 5 min).
	// Negative: wait forever (reactive mode does).
	ResourceWaitTimeout time.Duration
	// ResourceStabilizationTimeout is how long WaitingForResources waits,
	// once it has sufficient but not the desired slots, for the slots to
	// stop changing (resource-stabilization-timeout, 10 s; the window
	// restarts at every change). Negative: start at once (reactive
	// mode).
	ResourceStabilizationTimeout time.Duration
	// Rescale is the policy of rescaling while Executing.
	Rescale RescaleOptions
}

// RescaleOptions decide when an Executing job rescales to use a new set of
// slots.
type RescaleOptions struct {
	// MinParallelismIncrease is how much some vertex's parallelism must
	// grow for a rescale to be worth it at once (min-parallelism-increase,
	// 1).
	MinParallelismIncrease int
	// Cooldown is the time after the job started executing (after each
	// rescale or restart) during which it does not rescale
	// (executing.cooldown-after-rescaling, 30 s). Changes seen meanwhile
	// are judged when it ends, against the slots then held, so slots
	// that come and go within it cause nothing.
	Cooldown time.Duration
	// MaxDelay forces a rescale that is wanted but smaller than
	// MinParallelismIncrease once this long has passed since the job
	// started executing (scaling-interval.max). Zero: never forced.
	MaxDelay time.Duration
	// OnCheckpoint takes a rescale right after a checkpoint the scheduler
	// triggers for it, so little is replayed (FLIP-461); the JobMaster
	// sets it when checkpointing is enabled.
	OnCheckpoint bool
	// FailedCheckpoints is how many checkpoints may fail while a rescale
	// waits for one before it goes ahead anyway
	// (scale-on-failed-checkpoints-count, 2).
	FailedCheckpoints int
}

// Defaults, as Flink's.
const (
	DefaultResourceWaitTimeout          = 5 * time.Minute
	DefaultResourceStabilizationTimeout = 10 * time.Second
	DefaultRescaleCooldown              = 30 * time.Second
	DefaultFailedCheckpoints            = 2
)

// WithDefaults returns o with every unset field at its default, and the
// reactive mode's overrides: no resource wait timeout, no stabilization.
func (o Options) WithDefaults() Options {
	if o.Mode == "" {
		o.Mode = Default
	}
	if o.ResourceWaitTimeout == 0 {
		o.ResourceWaitTimeout = DefaultResourceWaitTimeout
	}
	if o.ResourceStabilizationTimeout == 0 {
		o.ResourceStabilizationTimeout = DefaultResourceStabilizationTimeout
	}
	if o.Mode == Reactive {
		o.ResourceWaitTimeout, o.ResourceStabilizationTimeout = -1, -1
	}
	if o.Rescale.MinParallelismIncrease == 0 {
		o.Rescale.MinParallelismIncrease = 1
	}
	if o.Rescale.Cooldown == 0 {
		o.Rescale.Cooldown = DefaultRescaleCooldown
	}
	if o.Rescale.FailedCheckpoints == 0 {
		o.Rescale.FailedCheckpoints = DefaultFailedCheckpoints
	}
	return o
}

// ErrInvalidOptions marks options that cannot work.
var ErrInvalidOptions = errors.New("adaptive: invalid options")

// Validate checks options after WithDefaults.
func (o Options) Validate() error {
	switch {
	case o.Mode != Default && o.Mode != Reactive:
		return fmt.Errorf("%w: mode %q is neither %q nor %q", ErrInvalidOptions, o.Mode, Default, Reactive)
	case o.Rescale.MinParallelismIncrease < 1:
		return fmt.Errorf("%w: min parallelism increase %d below 1", ErrInvalidOptions, o.Rescale.MinParallelismIncrease)
	case o.Rescale.Cooldown < 0:
		return fmt.Errorf("%w: negative rescale cooldown %v", ErrInvalidOptions, o.Rescale.Cooldown)
	case o.Rescale.MaxDelay < 0:
		return fmt.Errorf("%w: negative rescale max delay %v", ErrInvalidOptions, o.Rescale.MaxDelay)
	case o.Rescale.FailedCheckpoints < 1:
		return fmt.Errorf("%w: scale-on-failed-checkpoints-count %d below 1", ErrInvalidOptions, o.Rescale.FailedCheckpoints)
	}
	return nil
}
