// Package network owns the data plane between tasks: result partitions
// and their subpartitions on the producer's side, input gates and channels
// on the consumer's side, the connection manager that moves buffers between
// them, credit-based flow control, priority events, the in-band events
// (EndOfData, EndOfPartition, checkpoint barriers, cancel markers) and the
// framing of records, watermarks and watermark statuses inside buffers.
//
// The model is Flink's. A producer subtask writes, per output edge, into
// its own ResultPartition: one Subpartition per consumer channel. A
// consumer subtask reads through its Gate: one InputChannel per producer
// subtask of each input edge. A ConnectionManager connects each input
// channel to the subpartition it reads, whichever of producer and consumer
// comes first; Registry is the local (in-memory) one, package network/tcp
// carries the same items between TaskManagers (its Receiver stands in for
// a remote input channel, its Source for a remote subpartition). A
// producer therefore runs, and fills its backlog, before its consumer is
// deployed. Partition types:
// PIPELINED; BLOCKING for batch exchanges (blocking.go); and
// BLOCKING_PERSISTENT for the cluster partitions of cached streams, opened
// from existing files and served again and again (persistent.go).
//
//	producer task                         consumer task
//	RecordWriter ─► ResultPartition        Gate
//	                 ├ Subpartition 0 ───►  ├ InputChannel k   (of consumer 0)
//	                 └ Subpartition 1 ───►  ...                (of consumer 1)
//	                   Outbox: queue,          queue, credit
//	                   credit, backlog    ◄─── credit back on recycle
//
// Flow control is Flink's credit-based scheme. A receiving channel has a
// fixed number of buffers (its credit), announced to the subpartition when
// it connects. The subpartition hands a buffer over only while it holds
// credit; otherwise the buffer waits in its backlog. When the receiver has
// consumed a buffer it recycles it, which returns one credit and hands the
// buffer's memory back to the producer for reuse. The accounting is the
// pure Outbox; Subpartition and Gate add the locking (a subpartition's
// mutex before its consumer gate's, never the other way).
//
// No send blocks. A subpartition whose backlog is full is not writable,
// and its partition is then unavailable: the producing task stops reading
// its input or polling its source and goes back to its mailbox until the
// partition's Wake says it is available again (Flink's availability-based
// mailbox loop, see package task). That is back-pressure, and it bounds
// the memory of every channel to credit + backlog + 1 buffers whatever the
// speed of the consumer (plus what one input record produces beyond that,
// which is never refused), and it leaves the task free to answer
// checkpoint triggers and priority events while back-pressured.
//
// Priority events: the barrier of an unaligned checkpoint and a cancel
// marker (IsPriority) overtake the buffers queued in the subpartition and
// in the input channel, need no credit, and are polled even from a
// channel blocked for alignment. Subpartition.Add returns the data buffers
// a priority event overtook there, and Gate.Poll those it overtook in the
// input channel (Item.Overtaken): both are the in-flight data (channel
// state) of the checkpoint, still delivered after the barrier.
//
// Network memory. Every TaskManager has a BufferPool: its network memory
// (DefaultNetworkMemory, or --network-memory / weir.WithNetworkMemory)
// counted in buffers of BufferMemory(BufferSize) bytes (36 KiB for the
// default 32 KiB payload). The buffers of a channel are split between its
// ends, as they would be between two TaskManagers: the receiving subtask
// holds Credit buffers per input channel, the sending subtask the buffer it
// fills plus Backlog per subpartition. So a subtask needs
//
//	buffers = inputChannels*Credit + subpartitions*(1+Backlog)
//
// where inputChannels is, summed over its input edges, the number of
// producer subtasks it reads (all of them for ALL_TO_ALL, one or a few for
// POINTWISE), and subpartitions likewise the consumer subtasks it writes
// to. A TaskManager needs the sum over the subtasks of the job's slot plan
// that it runs (Demand). At submission the JobMaster sizes the job's
// channels (Size): the default Sizing (credit 2, backlog 2: 5 buffers per
// channel) when every TaskManager's pool holds it, fewer backlog and then
// fewer credit buffers when not, down to MinSizing (credit 1, backlog 0: 2
// buffers per channel, one at each end). A job that needs more than its
// pool holds even at MinSizing fails at submission, before any task runs,
// with an InsufficientError that names the TaskManager, the buffers needed
// and the flag to change; Flink fails the same way ("Insufficient number of
// network buffers"). An ALL_TO_ALL edge between two vertices of parallelism
// p on one TaskManager has p*p channels, so at MinSizing it needs 2*p*p
// buffers: the default 1 GiB holds p = 120 for wordcount, 64 GiB would be
// needed for p = 1024. Each subtask requests its buffers from its
// TaskManager's pool when deployed and recycles them when it ends, so the
// sizing cannot deadlock: every channel has its buffers from the start and
// never waits for another channel's. Flink instead lets channels share
// floating buffers per gate; Weir's channels have exclusive buffers only,
// which is simpler and bounds memory the same way.
//
// The pool counts buffers; the memory is allocated by the channels when
// they first need it (a writer's buffer for a channel is taken when a
// record goes to it; a watermark alone takes a small one), kept for reuse
// while the channel lives and dropped with it. Memory therefore follows use
// and the pool is its ceiling.
//
// In this process channels are local: a buffer moves from the producer's
// subpartition to the consumer's input channel without a copy.
//
// Buffer format: a data buffer is a sequence of elements, each a tag byte
// followed by its body:
//
//	0x01 record        codec encoding of the value
//	0x02 record+ts     8-byte little-endian event timestamp, then the value
//	0x03 watermark     8-byte little-endian watermark
//	0x04 wm status     1 byte: 0x01 idle, 0x00 active
//	0x05 keyed record  2-byte little-endian key group, then the value
//	0x06 keyed rec+ts  8-byte timestamp, 2-byte key group, then the value
//
// The writer of a keyed exchange (NewKeyedRecordWriter) sends keyed
// records: the key group it routed the record by travels with it, and a
// reader hands it to a keyed operator that takes it (op.KeyedBatchInput),
// which then need not hash the key again.
//
// A watermark status (Flink's WatermarkStatus) says that the sender has
// nothing to say about event time for now (idle: its source's splits are
// all quiet, or all its own inputs are idle) or that it has again
// (active). The receiver's Valve then leaves the channel out of its
// minimum, and takes it back only once its watermark caught up, so a quiet
// subtask does not hold back event time downstream. A writer announces
// each change once, and announces active before it sends a watermark
// after idle; statuses, like watermarks, travel in data buffers so that
// they keep their order with the records.
//
// Records never span buffers. Events travel as their own items, never inside
// a data buffer.
package network
