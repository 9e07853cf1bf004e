package kafka

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir"
)

// Package documentation of the source, to be merged into doc.go:
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
//     are all idle emits the highest watermark they reached; Weir has no
//     idle status for whole subtasks yet (Flink's WatermarkStatus), so such
//     a subtask still holds the others back at that point.
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

// Record is a Kafka record as the Deserializer sees it.
type Record struct {
	Topic     string
	Partition int32
	Offset    int64
	Key       []byte
	Value     []byte
	Headers   []Header
	// Timestamp is the record's timestamp (create or log-append time).
	Timestamp time.Time
}

// Header is a record header.
type Header = kgo.RecordHeader

// DeserializeError is the error of a record the Deserializer refused. It
// matches weir.ErrUnrecoverable: a restarted job would meet the same
// record again.
type DeserializeError struct {
	Topic     string
	Partition int32
	Offset    int64
	Err       error
}

func (e *DeserializeError) Error() string {
	return fmt.Sprintf("kafka source: deserialize the record at topic %s partition %d offset %d: %v",
		e.Topic, e.Partition, e.Offset, e.Err)
}

func (e *DeserializeError) Unwrap() error { return e.Err }

// Is makes the error match weir.ErrUnrecoverable.
func (e *DeserializeError) Is(target error) bool { return target == weir.ErrUnrecoverable }

// Source adds a source of the records of the topics opts names, each
// deserialized by opts.Deserializer. It returns an error when the options
// are not valid; brokers and topics are checked when the job starts.
func Source[T any](env *weir.Env, opts SourceOptions[T]) (weir.DataStream[T], error) {
	o, err := opts.withDefaults()
	if err != nil {
		return weir.DataStream[T]{}, err
	}
	cfg := o.config()
	log := env.Options().Logger
	if log == nil {
		log = slog.Default()
	}
	// A subtask that holds all it was given asks for more this often, so
	// a discovered partition reaches its owner within a second of its
	// discovery. Without discovery no split comes later: the asking is
	// rare then.
	request := min(o.DiscoveryInterval, time.Second)
	if o.DiscoveryInterval <= 0 {
		request = DefaultDiscoveryInterval
	}
	s := weir.FromSplits(env, weir.SplitSource[T, split]{
		Name:            o.Name,
		Dynamic:         true,
		Unbounded:       !o.Bounded,
		RequestInterval: request,
		Watermarks:      o.Watermarks,
		NewEnumerator: func(p int, restored []byte) (weir.SplitEnumerator[split], error) {
			return newEnumerator(cfg, p, restored, log)
		},
		NewSourceReader: func(ctx weir.ReaderContext[T]) (weir.SourceReader[T, split], error) {
			return newReader(cfg, o.Deserializer, o.SkipBadRecords, ctx)
		},
	})
	return s, nil
}
