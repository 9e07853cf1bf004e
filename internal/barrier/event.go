package barrier

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/network/event"
)

// Event is an input of the handler, for callers that prefer one entry point
// (Step) to the On... methods. Each event type calls the method of the same
// name.
type Event interface{ isEvent() }

// BarrierReceived: the task polled Barrier from channel Channel at Now;
// Overtook says it overtook data queued in that channel (see OnBarrier).
type BarrierReceived struct {
	Channel  int
	Barrier  event.CheckpointBarrier
	Overtook bool
	Now      time.Time
}

// CancelReceived: the task polled CancelCheckpointMarker{ID} from channel Channel.
type CancelReceived struct {
	Channel int
	ID      int64
}

// EndOfPartitionReceived: the task polled EndOfPartition from Channel.
type EndOfPartitionReceived struct {
	Channel int
}

// Triggered: the coordinator triggered checkpoint Barrier.ID by RPC at Now.
type Triggered struct {
	Barrier event.CheckpointBarrier
	Now     time.Time
}

// Tick: time passed; Now is the current time.
type Tick struct {
	Now time.Time
}

// SnapshotDone: the task finished the snapshot of checkpoint ID.
type SnapshotDone struct {
	ID int64
}

func (BarrierReceived) isEvent()        {}
func (CancelReceived) isEvent()         {}
func (EndOfPartitionReceived) isEvent() {}
func (Triggered) isEvent()              {}
func (Tick) isEvent()                   {}
func (SnapshotDone) isEvent()           {}

// Step feeds one event to the handler. It panics on an event type it does
// not know, which is a bug in the caller.
func (h *Handler) Step(ev Event) {
	switch e := ev.(type) {
	case BarrierReceived:
		h.OnBarrier(e.Channel, e.Barrier, e.Overtook, e.Now)
	case CancelReceived:
		h.OnCancelMarker(e.Channel, e.ID)
	case EndOfPartitionReceived:
		h.OnEndOfPartition(e.Channel)
	case Triggered:
		h.OnTrigger(e.Barrier, e.Now)
	case Tick:
		h.OnTick(e.Now)
	case SnapshotDone:
		h.OnSnapshotDone(e.ID)
	default:
		panic(fmt.Sprintf("barrier: unknown event %T", ev))
	}
}
