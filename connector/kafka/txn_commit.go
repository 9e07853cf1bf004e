package kafka

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	weir "github.com/weir-engine/weir"
)

// ErrTransactionLost is wrapped by the error of a commit whose transaction
// the brokers aborted before it could be committed (its timeout ran out,
// or something else initialized its transactional id): its records are
// lost, and no retry brings them back, so the error is unrecoverable
// (errors.Is matches weir.ErrUnrecoverable too).
var ErrTransactionLost = errors.New("kafka: transaction aborted before its commit")

// lostError marks ErrTransactionLost as unrecoverable.
type lostError struct{ err error }

func (e lostError) Error() string { return e.err.Error() }
func (e lostError) Unwrap() error { return e.err }
func (e lostError) Is(target error) bool {
	return target == weir.ErrUnrecoverable || target == ErrTransactionLost
}

// committer commits pre-committed transactions with EndTxn, as their
// producer would: kgo cannot take over another client's transaction, but
// the coordinator accepts EndTxn from any connection that gives the
// transactional id with its producer id and epoch. The client is made at
// the first Commit and kept.
type committer[T any] struct {
	opts *SinkOptions[T]
	cl   *sinkClient
}

// Commit commits each committable's transaction; see commit for what
// counts as done. It stops at the first error; the runtime retries the
// whole list later (after a restore), which is safe since commit is
// idempotent.
func (c *committer[T]) Commit(ctx context.Context, committables []Committable) error {
	for _, k := range committables {
		if err := c.commit(ctx, k); err != nil {
			return fmt.Errorf("kafka: commit transaction %s (producer %d, epoch %d) of checkpoint %d, topic %q: %w",
				k.TransactionalID, k.ProducerID, k.ProducerEpoch, k.CheckpointID, c.opts.Topic, err)
		}
	}
	return nil
}

// commit sends EndTxn(commit) for one transaction, and reads the answer:
//
//   - no error: committed now, or committed before and this is a retry
//     (the coordinator answers a repeated EndTxn with success: from the
//     same epoch before KIP-890, from the epoch just before the bumped one
//     after it);
//   - INVALID_PRODUCER_ID_MAPPING or UNKNOWN_PRODUCER_ID: the coordinator
//     no longer knows the transactional id. It forgets an id only when it
//     was idle for transactional.id.expiration.ms (7 days by default), and
//     an open transaction is not idle, so this transaction ended long ago;
//     as with PostgreSQL's 42704 in the postgres sink, it is taken as
//     committed: a committable exists only for a transaction pre-committed
//     for a checkpoint that then completed, recovery never aborts ids the
//     restored checkpoint holds (txn_abort.go), so only a committer ends
//     it. This is a log line at Info and done;
//   - INVALID_TXN_STATE (a commit of an aborted transaction) and
//     PRODUCER_FENCED / INVALID_PRODUCER_EPOCH (the id was initialized
//     again since; the brokers do that when the transaction timeout runs
//     out) mean the transaction was aborted: its records are lost, and
//     the error wraps ErrTransactionLost, unrecoverable. Flink logs these
//     and goes on; Weir stops, since going on would hide the loss;
//   - anything else (brokers down, a coordinator moving) is returned, and
//     the runtime retries after restoring the checkpoint that holds the
//     committable.
func (c *committer[T]) commit(ctx context.Context, k Committable) error {
	if c.cl == nil {
		cl, err := newSinkClient(c.opts)
		if err != nil {
			return err
		}
		c.cl = cl
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = k.TransactionalID, k.ProducerID, k.ProducerEpoch, true
	resp, err := req.RequestWith(ctx, c.cl.Client)
	if err != nil {
		return c.cl.explain(err, "EndTxn", c.opts.Brokers, c.opts.Timeout)
	}
	switch err := kerr.ErrorForCode(resp.ErrorCode); {
	case err == nil:
		return nil
	case errors.Is(err, kerr.InvalidProducerIDMapping), errors.Is(err, kerr.UnknownProducerID):
		c.opts.Logger.Info("kafka: transaction finished long ago (its id expired): taken as committed",
			"transactional_id", k.TransactionalID, "checkpoint", k.CheckpointID, "topic", c.opts.Topic, "answer", err)
		return nil
	case errors.Is(err, kerr.InvalidTxnState), errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerEpoch):
		return lostError{fmt.Errorf("%w: its records are lost (was it open longer than transaction.timeout.ms %v, or does another job use the prefix?): %w",
			ErrTransactionLost, c.opts.TransactionTimeout, err)}
	default:
		return err
	}
}

// Close closes the client.
func (c *committer[T]) Close() error {
	if c.cl != nil {
		c.cl.Close()
		c.cl = nil
	}
	return nil
}
