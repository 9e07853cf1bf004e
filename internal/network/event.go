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

func (EndOfData) isEvent()      {}
func (EndOfPartition) isEvent() {}

// Item is what travels through a channel: a data buffer or an event.
type Item struct {
	// Buf holds framed elements when Event is nil.
	Buf   []byte
	Event Event
}

// Element tags inside a data buffer.
const (
	TagRecord    byte = 0x01
	TagRecordTS  byte = 0x02
	TagWatermark byte = 0x03
)
