package scheduler

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"time"
)

// RestartStrategy decides whether a failed job restarts and after what
// delay, as Flink's restart strategies do. Implementations are pure: time
// and randomness come in as arguments.
type RestartStrategy interface {
	// OnFailure records a failure at now and returns the delay before the
	// restart, or ok=false when the job must fail instead.
	OnFailure(now time.Time) (delay time.Duration, ok bool)
	// String describes the strategy for logs and errors.
	String() string
}

// NoRestart fails the job at its first failure.
type NoRestart struct{}

// OnFailure implements RestartStrategy.
func (NoRestart) OnFailure(time.Time) (time.Duration, bool) { return 0, false }
func (NoRestart) String() string                            { return "no restarts" }

// FixedDelay restarts up to Attempts times, waiting Delay each time.
type FixedDelay struct {
	Attempts int
	Delay    time.Duration
	used     int
}

// OnFailure implements RestartStrategy.
func (f *FixedDelay) OnFailure(time.Time) (time.Duration, bool) {
	if f.used >= f.Attempts {
		return 0, false
	}
	f.used++
	return f.Delay, true
}

func (f *FixedDelay) String() string {
	return fmt.Sprintf("fixed delay (%d attempts, %v)", f.Attempts, f.Delay)
}

// ExponentialDelay restarts with a delay that starts at Initial and is
// multiplied by Multiplier after each failure up to Max, with a jitter of
// ±Jitter (a fraction) drawn from Rand. After ResetAfter without a failure
// the delay starts over at Initial, and so does the count of attempts:
// with Attempts > 0 the job fails at the failure after Attempts restarts
// without such a quiet period (Flink's attempts-before-reset-backoff);
// with 0 it restarts forever.
type ExponentialDelay struct {
	Initial, Max time.Duration
	Multiplier   float64
	Jitter       float64
	ResetAfter   time.Duration
	Attempts     int
	// Rand returns a number in [0, 1); it is an input to keep the strategy
	// pure (tests pass a fixed sequence).
	Rand func() float64

	current time.Duration
	last    time.Time
	used    int
}

// OnFailure implements RestartStrategy.
func (e *ExponentialDelay) OnFailure(now time.Time) (time.Duration, bool) {
	switch {
	case e.current == 0 || (e.ResetAfter > 0 && !e.last.IsZero() && now.Sub(e.last) >= e.ResetAfter):
		e.current = e.Initial
		e.used = 0
	default:
		e.current = time.Duration(math.Min(float64(e.current)*e.Multiplier, float64(e.Max)))
	}
	e.last = now
	if e.Attempts > 0 && e.used >= e.Attempts {
		return 0, false
	}
	e.used++
	d := e.current
	if e.Jitter > 0 && e.Rand != nil {
		d += time.Duration((e.Rand()*2 - 1) * e.Jitter * float64(d))
	}
	return max(d, 0), true
}

func (e *ExponentialDelay) String() string {
	if e.Attempts > 0 {
		return fmt.Sprintf("exponential delay (%v to %v, x%v, %d attempts)", e.Initial, e.Max, e.Multiplier, e.Attempts)
	}
	return fmt.Sprintf("exponential delay (%v to %v, x%v)", e.Initial, e.Max, e.Multiplier)
}

// FailureRate restarts after Delay as long as fewer than MaxFailures
// failures happened within the last Interval.
type FailureRate struct {
	MaxFailures int
	Interval    time.Duration
	Delay       time.Duration
	failures    []time.Time
}

// OnFailure implements RestartStrategy.
func (f *FailureRate) OnFailure(now time.Time) (time.Duration, bool) {
	kept := f.failures[:0]
	for _, t := range f.failures {
		if now.Sub(t) < f.Interval {
			kept = append(kept, t)
		}
	}
	f.failures = append(kept, now)
	if len(f.failures) > f.MaxFailures {
		return 0, false
	}
	return f.Delay, true
}

func (f *FailureRate) String() string {
	return fmt.Sprintf("failure rate (%d per %v, delay %v)", f.MaxFailures, f.Interval, f.Delay)
}

// ErrRestartsExhausted wraps the last failure when the strategy gives up.
var ErrRestartsExhausted = errors.New("scheduler: restarts exhausted")

// ErrUnrecoverable marks a failure that no restart can fix (a savepoint
// that cannot be read, state that fits no operator): the job fails at once
// whatever the strategy.
var ErrUnrecoverable = errors.New("unrecoverable")

// MarkUnrecoverable returns err marked ErrUnrecoverable, with err's
// message unchanged (nil for nil).
func MarkUnrecoverable(err error) error {
	if err == nil {
		return nil
	}
	return unrecoverable{err}
}

// unrecoverable is an error marked ErrUnrecoverable.
type unrecoverable struct{ error }

func (u unrecoverable) Unwrap() []error { return []error{u.error, ErrUnrecoverable} }

// Unrecoverable reports whether no restart can fix err: it is marked
// ErrUnrecoverable, or it is a file that does not exist or may not be
// accessed (a missing input, a directory without permission), which a
// restart of the same job meets again. A full disk is not among them:
// space may be freed while the job waits to restart.
func Unrecoverable(err error) bool {
	return errors.Is(err, ErrUnrecoverable) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)
}
