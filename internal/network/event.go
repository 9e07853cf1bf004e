package network

import "github.com/weir-engine/weir/internal/network/event"

// The in-band events are defined in package event, which imports nothing
// of Weir so that the pure barrier handler can take them as they are; these
// aliases keep their network names.
type (
	// Event is an in-band control message that travels in order with the
	// data of a channel.
	Event = event.Event
	// EndOfData says the sender emitted its last record.
	EndOfData = event.EndOfData
	// EndOfPartition is the last item of a channel.
	EndOfPartition = event.EndOfPartition
	// CheckpointBarrier marks the point of a checkpoint in a channel.
	CheckpointBarrier = event.CheckpointBarrier
	// CancelCheckpointMarker tells downstream tasks a checkpoint was aborted.
	CancelCheckpointMarker = event.CancelCheckpointMarker
	// ChannelFailed is put into an input channel whose remote source is
	// lost; polling it fails the task.
	ChannelFailed = event.ChannelFailed
)

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
