package network

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
// checkpoint ID: what came before belongs to the checkpoint.
type CheckpointBarrier struct {
	ID        int64
	Timestamp int64
	// Savepoint marks savepoints; Unaligned lets the barrier overtake data
	// (its in-flight data becomes part of the checkpoint); AlignedTimeout
	// switches an aligned checkpoint to unaligned after that long.
	Savepoint      bool
	Unaligned      bool
	AlignedTimeout int64 // milliseconds, 0 for none
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

// CancelCheckpointMarker tells downstream tasks that checkpoint ID was
// aborted, so they stop aligning for it.
type CancelCheckpointMarker struct {
	ID int64
}

func (EndOfData) isEvent()              {}
func (EndOfPartition) isEvent()         {}
func (CheckpointBarrier) isEvent()      {}
func (CancelCheckpointMarker) isEvent() {}

// Item is what travels through a channel: a data buffer or an event.
type Item struct {
	// Buf holds framed elements when Event is nil.
	Buf   []byte
	Event Event
	// Overtaken is set by Gate.Poll on a priority event: copies of the
	// data buffers it overtook in its input channel, in order. They are
	// still polled after it.
	Overtaken [][]byte
}

// Element tags inside a data buffer.
const (
	TagRecord    byte = 0x01
	TagRecordTS  byte = 0x02
	TagWatermark byte = 0x03
	// TagWatermarkStatus is followed by one byte, StatusIdle or
	// StatusActive (Flink's WatermarkStatus).
	TagWatermarkStatus byte = 0x04
)

// The bodies of a TagWatermarkStatus element.
const (
	StatusActive byte = 0x00
	StatusIdle   byte = 0x01
)
