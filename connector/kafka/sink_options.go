package kafka

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// DeliveryGuarantee is what the sink promises about each element, Flink's
// sink.delivery-guarantee.
type DeliveryGuarantee string

// The delivery guarantees, with Flink's names.
const (
	// None: records are handed to the producer and may be lost on a
	// failure (buffered ones) or written twice (after a restore). The
	// writer flushes only at the end of its input.
	None DeliveryGuarantee = "none"
	// AtLeastOnce: the writer flushes at every checkpoint, so every record
	// before a completed checkpoint is in Kafka; after a restore, the
	// records since that checkpoint are written again (duplicates).
	AtLeastOnce DeliveryGuarantee = "at-least-once"
	// ExactlyOnce: records are written in a Kafka transaction per
	// checkpoint and subtask, committed once the checkpoint completed;
	// read_committed consumers see each record once. See the package doc.
	ExactlyOnce DeliveryGuarantee = "exactly-once"
)

// ParseDeliveryGuarantee reads a delivery guarantee by its name (Flink's:
// none, at-least-once, exactly-once; case and '_' for '-' do not matter).
func ParseDeliveryGuarantee(s string) (DeliveryGuarantee, error) {
	g := DeliveryGuarantee(strings.ReplaceAll(strings.ToLower(s), "_", "-"))
	switch g {
	case None, AtLeastOnce, ExactlyOnce:
		return g, nil
	}
	return "", fmt.Errorf("kafka: delivery guarantee %q: want none, at-least-once or exactly-once", s)
}

// Defaults of SinkOptions.
const (
	// DefaultTransactionTimeout is the default transaction.timeout.ms:
	// Kafka brokers' default transaction.max.timeout.ms, the longest they
	// accept. (Flink's Kafka sink defaults to one hour, which brokers with
	// the default maximum refuse.)
	DefaultTransactionTimeout = 15 * time.Minute
	// DefaultTimeout bounds waiting for the brokers (see SinkOptions.Timeout).
	DefaultTimeout = 30 * time.Second
)

// RecordSerializer turns an element into the Kafka record to write: its
// Key, Value, Headers, and optionally Topic (empty: SinkOptions.Topic) and
// Timestamp (zero: the time of writing). Partitions are chosen by key
// (murmur2, as Java clients do; records without a key are spread). The
// record is the producer's from then on: return a new one for each call.
// An error fails the job.
type RecordSerializer[T any] func(T) (*kgo.Record, error)

// ValueSerializer is a RecordSerializer of records with a value and no key.
func ValueSerializer[T any](value func(T) []byte) RecordSerializer[T] {
	return func(v T) (*kgo.Record, error) { return &kgo.Record{Value: value(v)}, nil }
}

// SinkOptions configures the Kafka sink. Field comments give Flink's names
// where Flink has the option.
type SinkOptions[T any] struct {
	// Brokers are the seed brokers, host:port (bootstrap.servers).
	// Required.
	Brokers []string
	// Topic is where records go whose serializer leaves Topic empty
	// (topic). Required unless every record names its topic. The writer
	// checks at start that it exists; the sink does not create topics
	// (brokers with auto.create.topics.enable do, on the first write).
	Topic string
	// Serializer makes the records (the record serialization schema).
	// Required.
	Serializer RecordSerializer[T]
	// DeliveryGuarantee is none, at-least-once or exactly-once
	// (sink.delivery-guarantee); empty means at-least-once, Flink's
	// default.
	DeliveryGuarantee DeliveryGuarantee
	// TransactionalIDPrefix names the sink's transactions
	// (transactional.id.prefix): their ids are
	// <prefix>-<subtask>-<checkpoint>. It must stay the same from one run
	// of a job to the next, so that a new run finds the transactions an
	// earlier one left open, and belong to one running job at a time.
	// Empty means weir-<topic>-<operator uid> (see the package doc).
	// Exactly-once only.
	TransactionalIDPrefix string
	// TransactionTimeout is how long the brokers let a transaction stay
	// open before they abort it (transaction.timeout.ms); zero means
	// DefaultTransactionTimeout. A transaction is open from the first
	// record after a checkpoint until the next checkpoint completed and
	// the commit ran, so it must be longer than the checkpoint interval
	// (SinkTo refuses a job where it is not), and at most the brokers'
	// transaction.max.timeout.ms. Exactly-once only.
	TransactionTimeout time.Duration
	// Timeout bounds each wait for the brokers: connecting and checking
	// the topic when a writer starts, each flush and each commit
	// (delivery.timeout.ms for records). Brokers that do not answer
	// within it give an error that names them. Zero means DefaultTimeout.
	Timeout time.Duration
	// ClientOptions are added to those of every Kafka client the sink
	// makes (TLS, SASL, linger, compression, ...). Options that the sink
	// sets itself (seed brokers, transactional id and timeout) must not be
	// among them.
	ClientOptions []kgo.Opt
	// Logger receives a line for each transaction that a writer aborts or
	// a committer finds already finished; nil means slog.Default().
	Logger *slog.Logger
}

// EnsureDefaults fills in the defaults of unset fields.
func (o *SinkOptions[T]) EnsureDefaults() {
	if o.DeliveryGuarantee == "" {
		o.DeliveryGuarantee = AtLeastOnce
	}
	if o.TransactionTimeout == 0 {
		o.TransactionTimeout = DefaultTransactionTimeout
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Validate reports what is missing or wrong.
func (o *SinkOptions[T]) Validate() error {
	var errs []error
	if len(o.Brokers) == 0 {
		errs = append(errs, errors.New("no brokers"))
	}
	for i, b := range o.Brokers {
		if b == "" {
			errs = append(errs, fmt.Errorf("broker %d is empty", i))
		}
	}
	if o.Serializer == nil {
		errs = append(errs, errors.New("no serializer"))
	}
	if _, err := ParseDeliveryGuarantee(string(o.DeliveryGuarantee)); err != nil {
		errs = append(errs, err)
	}
	if o.TransactionTimeout < time.Millisecond || o.TransactionTimeout > maxTransactionTimeout {
		errs = append(errs, fmt.Errorf("transaction.timeout.ms %v: want 1ms to %v", o.TransactionTimeout, maxTransactionTimeout))
	}
	if o.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout %v is negative", o.Timeout))
	}
	if o.TransactionalIDPrefix != "" {
		if err := checkTxnPrefix(o.TransactionalIDPrefix); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("kafka: sink options for topic %q: %w", o.Topic, err)
	}
	return nil
}

// maxTransactionTimeout is the largest transaction.timeout.ms the protocol
// carries (an int32 of milliseconds).
const maxTransactionTimeout = time.Duration(1<<31-1) * time.Millisecond

// Committable is what an exactly-once writer hands to the committer at a
// checkpoint: a Kafka transaction that holds the subtask's records since
// the checkpoint before, flushed but not committed. It is kept in
// checkpoints and savepoints, so its fields are plain.
type Committable struct {
	// TransactionalID is <prefix>-<subtask>-<n> (see the package doc).
	TransactionalID string
	// ProducerID and ProducerEpoch identify the transaction's producer
	// session; the committer ends the transaction with them (EndTxn), as
	// the producer itself would.
	ProducerID    int64
	ProducerEpoch int16
	// CheckpointID is the checkpoint whose records the transaction holds.
	CheckpointID int64
}
