package scheduler

import (
	"errors"
	"fmt"
)

// ErrConsequence marks a failure that another one caused: a producer whose
// consumer released its channel because the consumer failed. A job's root
// cause is the other failure once it is reported (see RootCause.Later),
// as in Flink, where a "partition released" failure of a producer is not
// the cause of its consumer's.
var ErrConsequence = errors.New("consequence of another failure")

// Consequence marks err as a consequence of another failure; its text
// stays err's.
func Consequence(err error) error {
	if err == nil || IsConsequence(err) {
		return err
	}
	return consequence{err}
}

// IsConsequence reports whether err is marked a consequence.
func IsConsequence(err error) bool { return errors.Is(err, ErrConsequence) }

type consequence struct{ err error }

func (c consequence) Error() string   { return c.err.Error() }
func (c consequence) Unwrap() []error { return []error{c.err, ErrConsequence} }

// RootCause is the failure a job fails or restarts with: the first failure
// of a generation, wrapped by why it ends the job (the restart strategy
// gave up, the job was stopping), until Later replaces a cause that was a
// consequence. The zero value is no failure.
type RootCause struct {
	cause error
	wrap  func(error) error
	err   error
}

// NewRootCause returns the root cause cause, reported wrapped by wrap (nil:
// as it is).
func NewRootCause(cause error, wrap func(error) error) RootCause {
	r := RootCause{cause: cause, wrap: wrap, err: cause}
	if wrap != nil && cause != nil {
		r.err = wrap(cause)
	}
	return r
}

// Err is the failure to report: the cause with its wrapping, or nil.
func (r RootCause) Err() error { return r.err }

// Cause is the failure itself, without its wrapping.
func (r RootCause) Cause() error { return r.cause }

// Later weighs a failure reported after the root cause, of the same
// generation: when the cause is a consequence and later is not, later
// started the failure and becomes the cause, with the same wrapping;
// otherwise the cause stays.
func (r RootCause) Later(later error) RootCause {
	if later == nil || !IsConsequence(r.cause) || IsConsequence(later) {
		return r
	}
	return NewRootCause(later, r.wrap)
}

// RestartsExhausted wraps the cause of a failure after which strategy gave
// up restarting (ErrRestartsExhausted).
func RestartsExhausted(strategy RestartStrategy) func(error) error {
	return func(cause error) error {
		return fmt.Errorf("%w (%v): %w", ErrRestartsExhausted, strategy, cause)
	}
}
