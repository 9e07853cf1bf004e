// Package tcp is the data plane between TaskManagers: a
// network.ConnectionManager (Manager) that carries the buffers and events
// of result partitions to input channels in other processes over TCP, as
// Flink's Netty shuffle does.
//
// One TCP connection per pair of TaskManagers, dialed by the consumer's
// side, carries many logical channels, one per input channel that reads a
// subpartition of the peer. Partitions produced and consumed in the same
// TaskManager connect in memory (network.Registry). The frame format is
// specified in docs/format/data-plane.md.
//
//	consumer TaskManager                        producer TaskManager
//	InputChannel ◄─ fetcher ◄── client conn ═══ server conn ◄─ sender ◄─ Subpartition
//	  (credit buffers)    PARTITION_REQUEST, CREDIT, RELEASE ─►
//	                    ◄─ BUFFER, EVENT, ERROR
//
// Flow control is the credit scheme of package network, stretched over
// the wire. The consumer's request announces the channel's credit (its
// free receiving buffers); the subpartition hands the sender an item only
// against a credit, and the sender queues it for the connection's writer;
// every buffer the consumer's task recycles, and every non-priority event
// it polls, returns one credit in a CREDIT frame (credits gathered while a
// frame waits go out together). Because nothing is sent without room for
// it at the receiver, the connection's reader never waits for a task: one
// back-pressured channel holds its items in its own subpartition and never
// blocks another channel of the same connection. A frame that arrives
// without credit breaks the protocol and closes the connection, so a
// channel never holds more receiving buffers than its credit: the buffers
// its subtask took from the TaskManager's network.BufferPool when it was
// deployed. Their memory is reused from one frame to the next.
//
// Events travel in order with the data of their channel. Priority events
// (unaligned barriers, cancel markers) overtake the items waiting in the
// producer's subpartition and, on arrival, those waiting in the input
// channel, exactly as locally; what already left the subpartition is on
// its way and is counted among the input channel's overtaken buffers, so
// the in-flight data of an unaligned checkpoint is the same as locally.
//
// Failures: a connection that closes (the peer died, a frame was corrupt,
// the Manager closed) releases the subpartitions it served, whose
// producers then fail with network.ErrReleased, and puts a
// network.ChannelFailed priority event into every input channel it fed,
// which fails the consuming task even while the channel is blocked for
// alignment: no task waits for data that cannot come. A request the
// producer's side cannot serve (no such subpartition, released) fails its
// channel the same way through an ERROR frame.
//
// Goroutines: per Manager one that accepts; per connection a reader and a
// writer. Locks: a subpartition's, then a sender's or a connection's; a
// fetcher's, then its connection's; the Manager's is never held while
// calling into a connection's side.
package tcp
