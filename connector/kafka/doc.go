// Package kafka reads from and writes to Apache Kafka with franz-go
// (github.com/twmb/franz-go), with Flink's guarantees: a split source whose
// offsets are part of the checkpoint, and a two-phase-commit sink that
// writes each checkpoint's records in Kafka transactions.
//
// Options carry Flink's names where Flink has them (in the field
// comments), so a Flink user can find each one.
//
// # Sink
//
//	sink, err := kafka.SinkTo(counts, kafka.SinkOptions[Count]{
//		Brokers:           []string{"kafka-1:9092", "kafka-2:9092"},
//		Topic:             "counts",
//		Serializer:        func(c Count) (*kgo.Record, error) { return &kgo.Record{Key: []byte(c.Key), Value: c.Bytes()}, nil },
//		DeliveryGuarantee: kafka.ExactlyOnce,
//	})
//	sink.UID("counts-sink")
//
// SinkTo builds the sink (NewSink/TryNewSink do the same for weir.SinkTo)
// and checks it against the job's checkpointing when the job is built.
// The serializer makes a record per element: key, value, headers,
// optionally its own topic and timestamp.
//
// # Sink: delivery guarantees (sink.delivery-guarantee)
//
//   - none: records go to an idempotent producer; the writer flushes only
//     at the end of its input. A failure loses what was buffered, and a
//     restore writes again what came after the checkpoint.
//   - at-least-once (the default, as in Flink): the writer also flushes at
//     every checkpoint, so a completed checkpoint's records are all in
//     Kafka; after a restore the records since it are written again.
//   - exactly-once: below. Consumers must read with isolation.level
//     read_committed to see each record once.
//
// # Sink: exactly-once, a transaction per checkpoint per subtask
//
// Each writer subtask writes its records between two checkpoints in one
// Kafka transaction, begun lazily at the first record after a checkpoint
// (a subtask that writes nothing opens none). At the checkpoint's barrier
// the writer flushes the transaction (pre-commit) and hands its
// transactional id, producer id and epoch to the runtime as a Committable,
// which becomes part of the checkpoint. When the checkpoint completed, the
// committer commits it with EndTxn. Kafka cannot hand an open transaction
// from one producer to another, so each transaction has a transactional
// id, and a client, of its own:
//
//	<transactional.id.prefix>-<subtask>-<n>
//
// where n is the id of the checkpoint the transaction follows, plus one
// (the id of the restored checkpoint plus one for a restored writer's
// first, 1 on a fresh start). The default prefix is weir-<topic>-<uid>
// from the topic and the sink's operator uid (set one with UID; a uid that
// is long or has unusual bytes is hashed). It holds no job id, so a run of
// the same job started again after a crash, with a new job id, finds what
// the crashed one left. A prefix belongs to one running job at a time, as
// in Flink: two jobs that write under one prefix abort each other's
// transactions. Every checkpoint makes a new transactional id per subtask;
// the brokers forget idle ones after transactional.id.expiration.ms (7
// days by default).
//
// What read_committed consumers see: a checkpoint's records, all at once,
// when the checkpoint completed and the committer ran; nothing of a
// transaction that was aborted. While a transaction is open, records after
// it in the same partition wait for it too (the last stable offset): so
// transactions that a crashed run left open are aborted when the job runs
// again (below), not left to their timeout. read_uncommitted consumers
// see records as they are written, including those of aborted
// transactions (a failed attempt's, written again after the restore).
//
// Recovery. When a writer starts, it lists the open transactions
// (ListTransactions: Kafka 3.0+, and DESCRIBE on the transactional ids)
// and aborts those of its prefix that an earlier run or attempt left
// behind: the ones begun after the restored checkpoint (n above its id;
// all of them on a fresh start), of its own subtask and, after the job was
// scaled down, of the subtasks i+p, i+2p, ... that no longer exist. It
// aborts one by initializing a producer for its id (InitProducerID), which
// fences the old producer and aborts its transaction. The transactions
// the restored checkpoint holds (n up to its id) are left to the
// committers, which commit them again: a commit may have been lost with
// the failed run. The committer is idempotent: a repeated EndTxn succeeds,
// and an id the coordinator no longer knows (it expired, long after its
// transaction ended) counts as committed, for the reason the postgres
// sink gives for a missing gid: only committers end what a checkpoint
// holds. A commit that finds its transaction aborted (its timeout ran
// out) fails the job with ErrTransactionLost (unrecoverable): its records
// are lost. (Flink logs this and goes on.)
//
// Bounded jobs: the final checkpoint (FLIP-147) pre-commits and commits
// the last records. Without checkpoints, the writer pre-commits at the end
// of its input and the committer commits at once.
//
// Transaction timeout (transaction.timeout.ms, default 15 minutes, the
// brokers' default transaction.max.timeout.ms): a transaction is open from
// its first record until the checkpoint after it completed, at least a
// checkpoint interval, plus the time to restart after a failure if the
// commit is to survive it. SinkTo refuses a timeout that is not longer
// than the checkpoint interval; the writer also refuses to pre-commit a
// transaction that was open longer than the timeout.
//
// Brokers that are not there, a topic that does not exist (with automatic
// creation off) and a transaction timeout the brokers do not allow are
// errors when a writer starts, within SinkOptions.Timeout, naming the
// brokers and the last connection error.
//
// # Source
//
// Source reads Kafka topics, named or matched by a pattern, on Weir's
// split-source API (FLIP-27) as Flink's KafkaSource does:
//
//   - Each topic partition is a split. The split enumerator runs on the
//     JobMaster: at a fresh start it lists the partitions and resolves the
//     starting offsets (earliest, latest, the group's committed offsets or
//     a timestamp) to numbers, then hands each partition to its owner
//     subtask (the topic's name picks a first subtask, partitions go round
//     from there). Every DiscoveryInterval (Flink's
//     partition.discovery.interval-ms, default 5 min) a goroutine of the
//     enumerator lists the partitions again; partitions and topics that
//     appeared are read from their first offset. Subtasks ask the
//     enumerator for new splits every second (or every discovery interval,
//     if shorter).
//   - Each source subtask reads all its partitions with one franz-go client
//     (direct partition consuming, no group membership). A split's position
//     is the offset of its next record; it is the source's state in a
//     checkpoint, so a restored job, at any parallelism, resumes each
//     partition exactly where the checkpoint was taken: with an
//     exactly-once sink, every record reaches the output once.
//   - With a GroupID the offsets of a checkpoint are committed to the group
//     when the checkpoint completes (Flink's commit.offsets.on.checkpoint),
//     asynchronously: for monitoring the consumer lag, never for
//     correctness. A failed commit is logged.
//   - Bounded (scan.bounded.mode latest-offset) stops each partition at the
//     offset that was its end when the job started (its last stable offset
//     with ReadCommitted), and the source ends (FLIP-147's end of input),
//     so a topic can feed a batch job. Discovery is off then. Transaction
//     markers move a split's offset although they are never emitted, so
//     a split whose last offsets are markers ends; read committed, a
//     split whose last records before its stop are aborted ones may have
//     to wait until the transaction open at the start ends.
//   - Watermarks: with SourceOptions.Watermarks each partition has its own
//     watermark inside its subtask and the subtask emits the least of those
//     of partitions that are not idle (WatermarkStrategy.Idleness), so one
//     quiet partition does not stall event time. A subtask whose partitions
//     are all idle (or that has none for Idleness) emits the highest
//     watermark they reached and tells downstream operators it is IDLE
//     (Flink's WatermarkStatus), so it does not hold back the other
//     subtasks either; its next record or watermark makes it ACTIVE again.
//   - Records reach the Deserializer with key, value, headers, timestamp,
//     topic, partition and offset. Its error fails the job (unrecoverable:
//     a restart would meet the same record) with a DeserializeError that
//     names topic, partition and offset, or, with SkipBadRecords, the
//     record is skipped and logged.
//   - ReadCommitted (isolation.level read_committed) reads only committed
//     transactions' records, as a consumer of an exactly-once sink's topic
//     should; aborted records and transaction markers are never emitted.
//     The default is Kafka's read_uncommitted, which also sees records of
//     open and aborted transactions.
//   - Brokers that do not answer fail the job when it starts, after
//     RequestTimeout, with an error that names them; a topic that does not
//     exist fails it with ErrUnknownTopic.
package kafka
