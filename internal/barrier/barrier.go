package barrier

import (
	"errors"
	"fmt"
)

// Options configures a Handler. The zero value is valid.
type Options struct {
	// LastCheckpointID is the newest checkpoint id already settled before
	// this handler starts (for a restored task, the id it restored from).
	// Barriers, cancel markers and triggers with an id at or below it are
	// obsolete and ignored. Default 0: checkpoint ids start at 1.
	LastCheckpointID int64
}

// ErrInvalidOptions is wrapped by Options.Validate.
var ErrInvalidOptions = errors.New("barrier: invalid options")

// Validate reports whether the options can be used.
func (o Options) Validate() error {
	if o.LastCheckpointID < 0 {
		return fmt.Errorf("%w: LastCheckpointID %d is negative", ErrInvalidOptions, o.LastCheckpointID)
	}
	return nil
}
