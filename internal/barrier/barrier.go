package barrier

import (
	"errors"
	"fmt"
	"time"
)

// Barrier is a checkpoint barrier as it travels in-band through a channel,
// and also the payload of a checkpoint triggered by RPC. All barriers of one
// checkpoint carry the same fields: the first one the handler sees decides
// the checkpoint's mode.
type Barrier struct {
	// ID is the checkpoint id. Ids grow: a larger id is a newer checkpoint.
	ID int64
	// Timestamp is the coordinator's trigger time of the checkpoint; the
	// handler passes it through to TriggerSnapshot unchanged.
	Timestamp int64
	// Unaligned selects an unaligned checkpoint: snapshot at the first
	// barrier and persist the other channels' in-flight data.
	Unaligned bool
	// AlignedTimeout, when positive and Unaligned is false, bounds the
	// alignment: once alignment has lasted that long (measured from the
	// first barrier or trigger this task saw), the checkpoint switches to
	// unaligned. Zero means align for as long as it takes.
	AlignedTimeout time.Duration
	// Overtook says the barrier overtook data buffers queued in its
	// channel (an unaligned barrier is a priority event, see
	// network.IsPriority): those buffers precede it in the stream, yet
	// the task polls them after it. Set by the task on barriers it polled,
	// never on triggers.
	Overtook bool
}

// CancelMarker is the in-band event that aborts checkpoint ID: an upstream
// task declined or aborted it.
type CancelMarker struct {
	// ID is the aborted checkpoint.
	ID int64
}

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
