package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	weir "github.com/weir-engine/weir"
)

// closeTimeout bounds the abort in Close, which has no context.
const closeTimeout = 5 * time.Second

// writer writes one subtask's records. Like every SinkWriter it is used by
// the task's goroutine only; the producer's callbacks, which run on the
// client's goroutines, report through mu.
//
// With exactly-once it has a transactional client per transaction: Kafka
// ends a transaction only through its transactional id, and the committer
// ends this one (EndTxn with the producer id and epoch) after the writer
// went on to the next, so each transaction has its own id and client. The
// other guarantees use one idempotent client for the writer's life.
type writer[T any] struct {
	opts *SinkOptions[T]
	info weir.SinkContext
	// prefix of the transactional ids (exactly-once).
	prefix string
	// next is n of the next transaction's id <prefix>-<subtask>-<n>.
	next int64

	cl *sinkClient // the producer; nil between transactions (exactly-once)
	// txn is the id of the open transaction ("" none) and txnStart when
	// it began.
	txn      string
	txnStart time.Time

	onProduced func(*kgo.Record, error) // w.produced, made once
	mu         sync.Mutex
	failed     error // the first record that could not be written
}

// start checks the brokers and the topic, and recovers (exactly-once).
func (w *writer[T]) start(ctx context.Context) error {
	cl, err := newSinkClient(w.opts)
	if err != nil {
		return err
	}
	if err := checkTopic(ctx, cl, w.opts); err != nil {
		cl.Close()
		return err
	}
	if w.opts.DeliveryGuarantee != ExactlyOnce {
		w.cl = cl // the producer from now on
		return nil
	}
	defer cl.Close()
	if w.prefix = w.opts.TransactionalIDPrefix; w.prefix == "" {
		if w.prefix, err = defaultTxnPrefix(w.opts.Topic, w.info.OperatorUID); err != nil {
			return fmt.Errorf("kafka: writer for topic %q: %w", w.opts.Topic, err)
		}
	}
	return w.abortLingering(ctx, cl)
}

// Write hands the element's record to the producer, opening a transaction
// first if none is open (exactly-once).
func (w *writer[T]) Write(ctx context.Context, v T) error {
	if err := w.err(); err != nil {
		return err
	}
	rec, err := w.opts.Serializer(v)
	if err != nil {
		return fmt.Errorf("kafka: serialize a record for topic %q: %w", w.opts.Topic, err)
	}
	if rec == nil {
		return fmt.Errorf("kafka: the serializer returned no record (topic %q)", w.opts.Topic)
	}
	if rec.Topic == "" {
		if w.opts.Topic == "" {
			return errors.New("kafka: the serializer's record names no topic, and the sink has no default Topic")
		}
		rec.Topic = w.opts.Topic
	}
	if w.cl == nil {
		if err := w.begin(ctx); err != nil {
			return err
		}
	}
	w.cl.Produce(ctx, rec, w.onProduced)
	return nil
}

// produced is the producer's callback for every record.
func (w *writer[T]) produced(r *kgo.Record, err error) {
	if err == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed == nil {
		w.failed = fmt.Errorf("kafka: write a record to topic %q: %w", r.Topic, err)
	}
}

func (w *writer[T]) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// begin opens the transaction <prefix>-<subtask>-<next> on a new client.
// Initializing its producer id fences whatever earlier producer had the
// id and aborts its open transaction.
func (w *writer[T]) begin(ctx context.Context) error {
	id := txnID(w.prefix, w.info.SubtaskIndex, w.next)
	cl, err := newSinkClient(w.opts, kgo.TransactionalID(id), kgo.TransactionTimeout(w.opts.TransactionTimeout))
	if err != nil {
		return err
	}
	ictx, cancel := context.WithTimeout(ctx, w.opts.Timeout)
	defer cancel()
	if _, _, err := cl.ProducerID(ictx); err != nil {
		cl.Close()
		err = cl.explain(err, "initialize transactional id "+id, w.opts.Brokers, w.opts.Timeout)
		return fmt.Errorf("kafka: begin transaction %s: %w", id, initError(err, w.opts.TransactionTimeout))
	}
	if err := cl.BeginTransaction(); err != nil {
		cl.Close()
		return fmt.Errorf("kafka: begin transaction %s: %w", id, err)
	}
	w.cl, w.txn, w.txnStart = cl, id, time.Now()
	return nil
}

// Flush waits until the producer wrote every record handed to it: at each
// checkpoint (at-least-once, exactly-once) and at the end of the input.
// With none it waits only at the end of the input, as Flink's sink does.
func (w *writer[T]) Flush(ctx context.Context, endOfInput bool) error {
	if w.cl == nil || (w.opts.DeliveryGuarantee == None && !endOfInput) {
		return w.err()
	}
	fctx, cancel := context.WithTimeout(ctx, w.opts.Timeout)
	defer cancel()
	if err := w.cl.Flush(fctx); err != nil {
		return fmt.Errorf("kafka: flush to topic %q: %w", w.opts.Topic, w.cl.explain(err, "the records", w.opts.Brokers, w.opts.Timeout))
	}
	return w.err()
}

// PrepareCommit pre-commits the open transaction (exactly-once): its
// records are flushed, and its id, producer id and epoch become the
// committable; the next record opens the next transaction. Without an
// open transaction, and with the other guarantees, there is nothing to
// commit.
func (w *writer[T]) PrepareCommit(ctx context.Context, checkpointID int64) ([]Committable, error) {
	if w.opts.DeliveryGuarantee != ExactlyOnce {
		return nil, w.err()
	}
	if w.txn == "" {
		w.next = checkpointID + 1
		return nil, nil
	}
	if err := w.Flush(ctx, false); err != nil {
		return nil, fmt.Errorf("kafka: pre-commit %s for checkpoint %d: %w", w.txn, checkpointID, err)
	}
	if open := time.Since(w.txnStart); open >= w.opts.TransactionTimeout {
		// The brokers have aborted it, or will before it is committed.
		return nil, fmt.Errorf("%w: transaction %s was open %v by checkpoint %d, longer than transaction.timeout.ms %v: "+
			"checkpoints must complete well within the transaction timeout", ErrTransactionTimeout, w.txn, open.Round(time.Millisecond),
			checkpointID, w.opts.TransactionTimeout)
	}
	pctx, cancel := context.WithTimeout(ctx, w.opts.Timeout)
	defer cancel()
	pid, epoch, err := w.cl.ProducerID(pctx)
	if err != nil {
		return nil, fmt.Errorf("kafka: pre-commit %s for checkpoint %d: %w", w.txn, checkpointID, err)
	}
	c := Committable{TransactionalID: w.txn, ProducerID: pid, ProducerEpoch: epoch, CheckpointID: checkpointID}
	// Closing the client leaves the transaction open on the brokers, for
	// the committer (or, after a failure, recovery) to end.
	w.cl.Close()
	w.cl, w.txn, w.next = nil, "", checkpointID+1
	return []Committable{c}, nil
}

// Close aborts an open transaction that was not pre-committed, so that
// read_committed consumers need not wait for its timeout, and closes the
// producer. Pre-committed transactions stay for the committer or recovery.
func (w *writer[T]) Close() error {
	if w.cl == nil {
		return nil
	}
	var err error
	if w.txn != "" {
		ctx, cancel := context.WithTimeout(context.Background(), min(closeTimeout, w.opts.Timeout))
		defer cancel()
		if aerr := w.cl.AbortBufferedRecords(ctx); aerr != nil {
			err = aerr
		} else {
			err = w.cl.EndTransaction(ctx, kgo.TryAbort)
		}
		if err != nil {
			err = fmt.Errorf("kafka: abort transaction %s: %w", w.txn, err)
		}
	}
	w.cl.Close()
	w.cl, w.txn = nil, ""
	return err
}
