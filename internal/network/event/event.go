// Package event defines the in-band control events that travel in order
// with the data of a network channel. It imports nothing of Weir, so that
// pure cores such as the barrier handler can take these events as they are
// instead of copying their fields; package network re-exports them.
package event

import "time"

// Event is an in-band control message that travels in order with the data
// of a channel.
type Event interface{ isEvent() }

// EndOfData says the sender emitted its last record: the receiver's input
// ends (endInput). The channel stays open for checkpoint barriers until
// EndOfPartition.
type EndOfData struct{}

// EndOfPartition is the last item of a channel.
type EndOfPartition struct{}

// CheckpointBarrier marks, in the stream of a channel, the point of
// checkpoint ID: what came before belongs to the checkpoint. It is also the
// payload of a checkpoint triggered by RPC. All barriers of one checkpoint
// carry the same fields.
type CheckpointBarrier struct {
	// ID is the checkpoint id. Ids grow: a larger id is a newer checkpoint.
	ID int64
	// Timestamp is the coordinator's trigger time of the checkpoint, in
	// Unix milliseconds.
	Timestamp int64
	// Savepoint marks savepoints; Unaligned lets the barrier overtake data
	// (its in-flight data becomes part of the checkpoint).
	Savepoint bool
	Unaligned bool
	// AlignedTimeoutMillis, when positive and Unaligned is false, switches
	// an aligned checkpoint to unaligned after that many milliseconds of
	// alignment; 0 for none. Read it through AlignedTimeout.
	AlignedTimeoutMillis int64
	// Drain marks stop-with-savepoint --drain: a source that is triggered
	// with it ends its input first (MaxWatermark, finish, EndOfData) and
	// takes the snapshot after, so the savepoint is the final checkpoint.
	Drain bool
	// Terminate marks stop-with-savepoint without drain (a synchronous
	// savepoint): after its snapshot a task emits nothing more and waits
	// for the savepoint's completion, runs its commits, and stops without
	// finishing its operators; when the savepoint is aborted it goes on.
	Terminate bool
	// Location is the directory of the snapshot that the tasks write
	// their state into, which the JobMaster chose at the trigger (Flink's
	// CheckpointStorageLocationReference): a savepoint's is random, so a
	// task could not derive it.
	Location string
}

// AlignedTimeout is AlignedTimeoutMillis as a duration: how long an
// aligned checkpoint may align before it switches to unaligned, 0 for as
// long as it takes.
func (b CheckpointBarrier) AlignedTimeout() time.Duration {
	return time.Duration(b.AlignedTimeoutMillis) * time.Millisecond
}

// CancelCheckpointMarker tells downstream tasks that checkpoint ID was
// aborted, so they stop aligning for it.
type CancelCheckpointMarker struct {
	ID int64
}

// ChannelFailed is not sent by a producer: a connection manager puts it
// into an input channel whose source can no longer reach it (its
// connection closed, or the producer's side refused the request). It is a
// priority event, so that a channel blocked for alignment delivers it too;
// the task that polls it fails with Err.
type ChannelFailed struct {
	Err error
}

func (e ChannelFailed) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e ChannelFailed) Unwrap() error { return e.Err }

func (EndOfData) isEvent()              {}
func (EndOfPartition) isEvent()         {}
func (CheckpointBarrier) isEvent()      {}
func (CancelCheckpointMarker) isEvent() {}
func (ChannelFailed) isEvent()          {}
