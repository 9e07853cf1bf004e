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
// (Written by the engineer of the Kafka source.)
package kafka
