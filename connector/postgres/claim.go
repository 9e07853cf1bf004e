package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"
)

// defaultClaimWait bounds how long a writer waits to claim its prefix and
// subtask: the connection of the writer it replaces (of a failed attempt,
// or of a process killed a moment ago) may take a moment to go away.
const defaultClaimWait = 10 * time.Second

// claim takes a session-level advisory lock on the writer's prefix and
// subtask, held by its connection until the writer closes (or the
// connection dies with its process). A second writer of the same prefix
// and subtask, of another job that was given the same prefix, fails here
// instead of rolling back the first one's transactions in its recovery.
//
// The locks cover only the subtasks 0..p-1 that run, yet they protect every
// gid that recovery touches: a writer with index i finishes the gids of
// subtasks i, i+p, ..., so when i is below the other job's parallelism its
// lock conflicts, and when it is not, the other job has no such subtask.
func (w *writer[T]) claim(ctx context.Context) error {
	h := fnv.New64a()
	h.Write([]byte("weir-transaction-prefix:" + w.prefix + "-" + strconv.Itoa(w.info.SubtaskIndex)))
	key := int64(h.Sum64())
	timeout := strconv.FormatInt(max(w.claimWait.Milliseconds(), 1), 10)
	if _, err := w.conn.Exec(ctx, "SET lock_timeout = "+timeout); err != nil {
		return fmt.Errorf("postgres: writer for table %s: %w", w.opts.Table, err)
	}
	_, err := w.conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key)
	if sqlState(err) == codeLockNotAvailable {
		return fmt.Errorf("postgres: writer for table %s: transaction prefix %s, subtask %d, is in use by another writer (%s) after %v: "+
			"a prefix belongs to one running job at a time; give each job its own TransactionPrefix",
			w.opts.Table, w.prefix, w.info.SubtaskIndex, w.holder(ctx, key), w.claimWait)
	}
	if err != nil {
		return fmt.Errorf("postgres: writer for table %s: claim transaction prefix %s: %w", w.opts.Table, w.prefix, err)
	}
	if _, err := w.conn.Exec(ctx, "RESET lock_timeout"); err != nil {
		return fmt.Errorf("postgres: writer for table %s: %w", w.opts.Table, err)
	}
	return nil
}

// holder describes the session that holds the advisory lock key, for the
// error message; best effort.
func (w *writer[T]) holder(ctx context.Context, key int64) string {
	var pid int
	var app, client string
	err := w.conn.QueryRow(ctx, `SELECT a.pid, a.application_name, coalesce(a.client_addr::text, 'local')
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
		AND l.classid::bigint = ($1::bigint >> 32) & 4294967295 AND l.objid::bigint = $1::bigint & 4294967295`, key).Scan(&pid, &app, &client)
	if err != nil {
		return "holder unknown"
	}
	return fmt.Sprintf("server process %d, application %s, client %s", pid, app, client)
}
