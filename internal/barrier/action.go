package barrier

import (
	"fmt"
	"time"
)

// Action is something the task loop must do. Ready hands actions back in the
// order they must be performed; see the package documentation for what each
// one asks of the task.
type Action interface {
	isAction()
	fmt.Stringer
}

// BlockChannel asks the task to stop polling channel Channel (Gate.Block):
// it delivered the barrier of the checkpoint being aligned, and what follows
// the barrier belongs after the snapshot.
type BlockChannel struct {
	Channel int
}

// UnblockAll asks the task to unblock every channel it blocked (Gate.Unblock
// for each). It follows the snapshot, an abort, or the switch of a timed-out
// alignment to unaligned.
type UnblockAll struct{}

// TriggerSnapshot asks the task to snapshot its operators for checkpoint ID
// now, before it processes any further input, and to send the barrier
// downstream.
type TriggerSnapshot struct {
	ID        int64
	Timestamp int64
	// Unaligned is true when the snapshot is taken before all barriers
	// arrived: from the start (an unaligned checkpoint) or after the
	// alignment timed out. The checkpoint then also holds channel state.
	Unaligned bool
	// PersistChannels, for an unaligned snapshot, are the channels whose
	// buffers up to their barrier (or EndOfPartition) become the
	// checkpoint's channel state, ascending. A StartPersisting for the same
	// channels follows. Empty for an aligned snapshot.
	PersistChannels []int
}

// StartPersisting asks the task to write every data buffer it receives on
// Channels, from now on, into checkpoint ID's channel state (and to process
// it as usual), until StopPersisting for that channel or AbortCheckpoint ID.
type StartPersisting struct {
	ID       int64
	Channels []int
}

// PersistOvertaken asks the task to add to checkpoint ID's channel state
// of Channel the data buffers that the barrier just polled from Channel
// overtook (and the unread rest of a buffer of Channel it was processing),
// before anything else it persists for Channel; it processes them as usual
// afterwards. It follows the TriggerSnapshot of an unaligned checkpoint
// whose barrier overtook data, or precedes the StopPersisting of Channel.
type PersistOvertaken struct {
	ID      int64
	Channel int
}

// StopPersisting says channel Channel delivered its barrier (or
// EndOfPartition) for checkpoint ID: its channel state is complete.
type StopPersisting struct {
	ID      int64
	Channel int
}

// AbortCheckpoint asks the task to decline checkpoint ID to the coordinator
// and to drop whatever it holds for it, including channel state being
// persisted: every StartPersisting of ID ends here.
type AbortCheckpoint struct {
	ID     int64
	Reason Reason
}

// ScheduleTick asks the task to call OnTick with a time at or after At. It
// is a hint: an early, late, repeated or stale tick is harmless.
type ScheduleTick struct {
	At time.Time
}

// ForwardCancel asks the task to send CancelMarker{ID} on all its outputs,
// so that downstream tasks stop aligning a checkpoint that cannot complete.
type ForwardCancel struct {
	ID int64
}

// Reason says why a checkpoint was aborted.
type Reason string

// Reasons of AbortCheckpoint.
const (
	// ReasonSubsumed: a newer checkpoint's barrier, trigger or cancel marker
	// arrived before this one completed here. A channel delivers ids in
	// increasing order, so the older one can no longer align.
	ReasonSubsumed Reason = "subsumed"
	// ReasonCanceled: a cancel marker for this checkpoint arrived.
	ReasonCanceled Reason = "canceled"
)

func (BlockChannel) isAction()     {}
func (UnblockAll) isAction()       {}
func (TriggerSnapshot) isAction()  {}
func (StartPersisting) isAction()  {}
func (StopPersisting) isAction()   {}
func (PersistOvertaken) isAction() {}
func (AbortCheckpoint) isAction()  {}
func (ScheduleTick) isAction()     {}
func (ForwardCancel) isAction()    {}

// String renders the action as the scripts in testdata print it.
func (a BlockChannel) String() string { return fmt.Sprintf("block ch=%d", a.Channel) }

// String renders the action as the scripts in testdata print it.
func (UnblockAll) String() string { return "unblock-all" }

// String renders the action as the scripts in testdata print it.
func (a TriggerSnapshot) String() string {
	if !a.Unaligned {
		return fmt.Sprintf("snapshot id=%d ts=%d aligned", a.ID, a.Timestamp)
	}
	return fmt.Sprintf("snapshot id=%d ts=%d unaligned persist=%v", a.ID, a.Timestamp, a.PersistChannels)
}

// String renders the action as the scripts in testdata print it.
func (a StartPersisting) String() string {
	return fmt.Sprintf("start-persisting id=%d ch=%v", a.ID, a.Channels)
}

// String renders the action as the scripts in testdata print it.
func (a PersistOvertaken) String() string {
	return fmt.Sprintf("persist-overtaken id=%d ch=%d", a.ID, a.Channel)
}

// String renders the action as the scripts in testdata print it.
func (a StopPersisting) String() string {
	return fmt.Sprintf("stop-persisting id=%d ch=%d", a.ID, a.Channel)
}

// String renders the action as the scripts in testdata print it.
func (a AbortCheckpoint) String() string {
	return fmt.Sprintf("abort id=%d reason=%s", a.ID, a.Reason)
}

// String renders the action; the scripts print At relative to their epoch.
func (a ScheduleTick) String() string {
	return "schedule-tick at=" + a.At.Format(time.RFC3339Nano)
}

// String renders the action as the scripts in testdata print it.
func (a ForwardCancel) String() string { return fmt.Sprintf("forward-cancel id=%d", a.ID) }
