package op

import (
	"errors"
	"fmt"
)

// Error attributes a failure to the operator subtask where it happened.
type Error struct {
	Operator             string
	Subtask, Parallelism int
	Err                  error
}

func (e *Error) Error() string {
	return fmt.Sprintf("operator %q (subtask %d/%d): %v", e.Operator, e.Subtask+1, e.Parallelism, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Attribute wraps err with the operator's identity unless it already names
// an operator (an error that bubbled up a chain keeps its origin).
func Attribute(err error, name string, subtask, parallelism int) error {
	if err == nil {
		return nil
	}
	var oe *Error
	if errors.As(err, &oe) {
		return err
	}
	return &Error{Operator: name, Subtask: subtask, Parallelism: parallelism, Err: err}
}
