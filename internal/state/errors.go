package state

import "errors"

// Errors reported by the backend. Usage errors are wrapped with context; test
// for them with errors.Is.
var (
	// ErrKeyGroupOutOfRange is recorded when SetCurrentKey is called with a
	// key group this backend does not own.
	ErrKeyGroupOutOfRange = errors.New("state: key group out of range")

	// ErrNoCurrentKey is recorded when state is accessed before any current
	// key was set, or after SetCurrentKey was called with an invalid key
	// group.
	ErrNoCurrentKey = errors.New("state: no current key")

	// ErrIncompatibleState is returned (and recorded) when a name is
	// registered again with a different kind of state or different type
	// parameters.
	ErrIncompatibleState = errors.New("state: incompatible state registration")

	// ErrUnknownState is returned when an operation names a state that was
	// never registered.
	ErrUnknownState = errors.New("state: unknown state")

	// ErrNilFunction is returned (and recorded) when a reducing or
	// aggregating state is registered with a nil function.
	ErrNilFunction = errors.New("state: nil function")
)
