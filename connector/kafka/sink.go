package kafka

import (
	"context"
	"errors"
	"fmt"

	weir "github.com/weir-engine/weir"
)

// Sink writes elements of T to Kafka with a delivery guarantee; it is a
// weir.Sink with committables of type Committable. Make one with NewSink
// or TryNewSink, and add it to a job with SinkTo (which checks it against
// the job's checkpointing) or weir.SinkTo.
type Sink[T any] struct {
	opts SinkOptions[T]
	err  error // from NewSink's validation
}

var _ weir.Sink[int, Committable] = (*Sink[int])(nil)

// NewSink returns a Kafka sink. Invalid options do not panic: CreateWriter
// and CreateCommitter return the error, so the job fails when it starts.
// TryNewSink reports it at once.
func NewSink[T any](opts SinkOptions[T]) *Sink[T] {
	s, err := TryNewSink(opts)
	if err != nil {
		return &Sink[T]{err: err}
	}
	return s
}

// TryNewSink is NewSink that returns invalid options as an error.
func TryNewSink[T any](opts SinkOptions[T]) (*Sink[T], error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts.Brokers = append([]string(nil), opts.Brokers...)
	opts.ClientOptions = append(opts.ClientOptions[:0:0], opts.ClientOptions...)
	g, _ := ParseDeliveryGuarantee(string(opts.DeliveryGuarantee))
	opts.DeliveryGuarantee = g
	return &Sink[T]{opts: opts}, nil
}

// SinkTo ends the stream in a Kafka sink after checking the options and
// the sink against the job's checkpointing (CheckCheckpointing): a
// configuration that cannot work is an error when the job is built, before
// anything runs.
func SinkTo[T any](s weir.DataStream[T], opts SinkOptions[T]) (weir.DataStreamSink, error) {
	sink, err := TryNewSink(opts)
	if err != nil {
		return weir.DataStreamSink{}, err
	}
	if err := sink.CheckCheckpointing(s.Env().Options().Checkpoints); err != nil {
		return weir.DataStreamSink{}, err
	}
	return weir.SinkTo[T, Committable](s, sink), nil
}

// ErrTransactionTimeout is wrapped by the error of a transaction timeout
// that is not longer than the checkpoint interval.
var ErrTransactionTimeout = errors.New("kafka: transaction timeout too short")

// CheckCheckpointing reports a checkpoint configuration the sink cannot
// work with: with exactly-once, a transaction stays open from its first
// record after a checkpoint until the next checkpoint completed, at least
// an interval, so a transaction.timeout.ms not longer than the interval
// lets the brokers abort transactions before they are committed, and their
// records are lost (Flink warns about the same). A nil config
// (checkpointing off) passes: the sink then commits at the end of its
// input (bounded jobs only).
func (s *Sink[T]) CheckCheckpointing(c *weir.CheckpointConfig) error {
	if s.err != nil {
		return s.err
	}
	if c == nil || s.opts.DeliveryGuarantee != ExactlyOnce || s.opts.TransactionTimeout > c.Interval {
		return nil
	}
	return fmt.Errorf("%w: transaction.timeout.ms %v of the sink to topic %q is not longer than the checkpoint interval %v: "+
		"a transaction stays open from its first record until the checkpoint after it completed, so the brokers would abort it "+
		"and its records would be lost; make the transaction timeout well above the checkpoint interval (and at most the brokers' transaction.max.timeout.ms)",
		ErrTransactionTimeout, s.opts.TransactionTimeout, s.opts.Topic, c.Interval)
}

// CreateWriter checks the brokers and the topic within the timeout and,
// with exactly-once, aborts the transactions that earlier runs left open
// and this subtask owns (see the package doc); then returns the writer.
func (s *Sink[T]) CreateWriter(ctx context.Context, info weir.SinkContext) (weir.SinkWriter[T, Committable], error) {
	if s.err != nil {
		return nil, s.err
	}
	if info.Parallelism < 1 || info.SubtaskIndex < 0 || info.SubtaskIndex >= info.Parallelism || info.RestoredFromID < 0 {
		return nil, fmt.Errorf("kafka: writer for topic %q: subtask %d of parallelism %d, restored from checkpoint %d",
			s.opts.Topic, info.SubtaskIndex, info.Parallelism, info.RestoredFromID)
	}
	w := &writer[T]{opts: &s.opts, info: info, next: info.RestoredFromID + 1}
	w.onProduced = w.produced
	if err := w.start(ctx); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	return w, nil
}

// CreateCommitter returns a committer; it connects at its first Commit.
func (s *Sink[T]) CreateCommitter(ctx context.Context, info weir.SinkContext) (weir.Committer[Committable], error) {
	if s.err != nil {
		return nil, s.err
	}
	return &committer[T]{opts: &s.opts}, nil
}
