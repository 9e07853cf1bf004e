// Package network owns the data plane between tasks: result subpartitions,
// input channels and gates, credit-based flow control, the in-band events
// (EndOfData, EndOfPartition; checkpoint barriers later) and the framing of
// records and watermarks inside buffers.
//
// Flow control is Flink's credit-based scheme. A receiving channel has a
// fixed number of buffers (its credit). The sender hands a buffer over only
// while it holds credit; otherwise the buffer waits in the sender's backlog,
// and when the backlog is full the sending task blocks: that is
// back-pressure, and it bounds the memory of every channel to
// (credit + backlog + 1) buffers whatever the speed of the consumer. When the
// receiver has consumed a buffer it recycles it, which returns one credit and
// hands the buffer's memory back to the sender for reuse. The accounting is
// the pure Credit type; Channel adds the locking and the wake-ups.
//
// In this process channels are local: a buffer moves from the sender's task
// to the receiver's task without a copy. The socket transport between
// TaskManagers will deliver into the same Channel type.
//
// Buffer format: a data buffer is a sequence of elements, each a tag byte
// followed by its body:
//
//	0x01 record        codec encoding of the value
//	0x02 record+ts     8-byte little-endian event timestamp, then the value
//	0x03 watermark     8-byte little-endian watermark
//
// Records never span buffers. Events travel as their own items, never inside
// a data buffer.
package network
