package kafka

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir"
)

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
