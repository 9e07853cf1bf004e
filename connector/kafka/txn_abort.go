package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	weir "github.com/weir-engine/weir"
)

// abortLingering aborts the open transactions of the writer's prefix that
// earlier runs and attempts left behind and that this subtask owns, before
// it writes anything:
//
//   - it lists the transactions that are open on the brokers
//     (ListTransactions, KIP-664, Kafka 3.0+), and keeps the ids of the
//     prefix <prefix>-<s>-<n>;
//   - it owns those with s mod parallelism = its index: after scaling from
//     4 subtasks to 2, subtask 1 also aborts what old subtask 3 left open,
//     so ids of subtasks that no longer exist are aborted too; the owners
//     partition the ids, so no two writers touch one;
//   - of these it aborts those with n > RestoredFromID (all of them on a
//     fresh start): they were begun after the restored checkpoint, so no
//     committable of it holds them, and the restored job writes their
//     records again. Those with n <= RestoredFromID are the restored
//     checkpoint's committables (see txn_names.go), which the committers
//     commit; they are left alone;
//   - it aborts an id by initializing a producer for it (InitProducerID),
//     which fences the producer that had it (a zombie of the failed run
//     can write no more under it) and aborts its open transaction.
//
// The writer's own transactions are not among them: it has not begun
// any, and the new transactions of the other writers of the job have ids
// of their own subtasks, which they own. Each aborted id gets a log line.
func (w *writer[T]) abortLingering(ctx context.Context, cl *sinkClient) error {
	ctx, cancel := context.WithTimeout(ctx, w.opts.Timeout)
	defer cancel()
	req := kmsg.NewPtrListTransactionsRequest()
	req.StateFilters = []string{"Ongoing"}
	resp, err := req.RequestWith(ctx, cl.Client)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		err = cl.explain(err, "a ListTransactions request", w.opts.Brokers, w.opts.Timeout)
		return fmt.Errorf("kafka: writer %d for topic %q: list open transactions of prefix %s (needs Kafka 3.0+ and DESCRIBE on the transactional ids): %w",
			w.info.SubtaskIndex, w.opts.Topic, w.prefix, err)
	}
	restored := w.info.RestoredFromID
	for _, t := range resp.TransactionStates {
		sub, n, ok := parseTxnID(w.prefix, t.TransactionalID)
		if !ok || sub%w.info.Parallelism != w.info.SubtaskIndex || n <= restored {
			continue
		}
		if _, _, err := initProducerID(ctx, cl, t.TransactionalID, w.opts.TransactionTimeout); err != nil {
			err = cl.explain(err, "InitProducerID", w.opts.Brokers, w.opts.Timeout)
			return fmt.Errorf("kafka: writer %d for topic %q: abort transaction %s left open by an earlier run (restored from checkpoint %d): %w",
				w.info.SubtaskIndex, w.opts.Topic, t.TransactionalID, restored, err)
		}
		w.opts.Logger.Info("kafka: aborted a transaction that no restored checkpoint holds",
			"transactional_id", t.TransactionalID, "restored_from", restored, "topic", w.opts.Topic,
			"subtask", w.info.SubtaskIndex, "job", w.info.JobID)
	}
	return nil
}

// initProducerID initializes the transactional id's producer, as a new
// producer would, and returns its id and epoch.
func initProducerID(ctx context.Context, cl *sinkClient, id string, timeout time.Duration) (int64, int16, error) {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = kmsg.StringPtr(id)
	req.TransactionTimeoutMillis = int32(timeout.Milliseconds())
	req.ProducerID, req.ProducerEpoch = -1, -1
	resp, err := req.RequestWith(ctx, cl.Client)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		return 0, 0, initError(err, timeout)
	}
	return resp.ProducerID, resp.ProducerEpoch, nil
}

// initError explains the errors of initializing a transactional producer
// that no restart can fix.
func initError(err error, timeout time.Duration) error {
	switch {
	case errors.Is(err, kerr.InvalidTransactionTimeout):
		return fmt.Errorf("%w: transaction.timeout.ms %v is more than the brokers allow (their transaction.max.timeout.ms, 15 minutes by default): "+
			"lower it or raise theirs: %w", weir.ErrUnrecoverable, timeout, err)
	case errors.Is(err, kerr.TransactionalIDAuthorizationFailed):
		return fmt.Errorf("%w: the sink may not use its transactional ids (grant WRITE and DESCRIBE on them): %w", weir.ErrUnrecoverable, err)
	}
	return err
}
