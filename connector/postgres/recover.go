package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// recover finishes the transactions of the writer's prefix that earlier
// runs and attempts left prepared and that this subtask owns: it commits
// those of checkpoints up to the one restored from (they completed, and
// the restored state holds their committables; their commit may not have
// happened) and rolls back all others: those of later checkpoints, which
// never completed (the restored job writes their rows again), and on a
// fresh start every one of them. Each gets a log line.
//
// A gid's owner is its subtask index modulo the current parallelism: after
// scaling down from 4 to 2 subtasks, subtask 1 also finishes what old
// subtask 3 prepared, so no gid of a subtask that no longer exists stays
// behind. Ownership is a partition, so no two writers touch the same gid.
// Everything runs before the writer writes, so its own new transactions
// are never among them, and after it claimed its prefix and subtask (see
// claim), so a running job's transactions are never among them either.
func (w *writer[T]) recover(ctx context.Context) error {
	gids, err := w.prepared(ctx)
	if err != nil {
		return fmt.Errorf("postgres: recover table %s: list prepared transactions of prefix %s: %w", w.opts.Table, w.prefix, err)
	}
	restored := w.info.RestoredFromID
	for _, gid := range gids {
		sub, ckpt, ok := parseGID(w.prefix, gid)
		if !ok || sub%w.info.Parallelism != w.info.SubtaskIndex {
			continue
		}
		commit := ckpt <= restored
		verb, done := "ROLLBACK PREPARED ", "postgres: rolled back a prepared transaction that no restored checkpoint holds"
		if commit {
			verb, done = "COMMIT PREPARED ", "postgres: committed a prepared transaction of the restored checkpoint"
		}
		_, err := w.conn.Exec(ctx, verb+quoteLiteral(gid))
		switch {
		case sqlState(err) == codeUndefinedObject:
			// Finished meanwhile, by a committer re-committing the
			// restored checkpoint's committables.
			w.opts.Logger.Debug("postgres: prepared transaction finished meanwhile", w.logAttrs(gid, ckpt)...)
		case err != nil:
			return fmt.Errorf("postgres: recover table %s: %s%s (checkpoint %d, restored from %d): %w",
				w.opts.Table, verb, gid, ckpt, restored, err)
		default:
			w.opts.Logger.Info(done, w.logAttrs(gid, ckpt)...)
		}
	}
	return nil
}

// logAttrs describe a gid that recovery finished.
func (w *writer[T]) logAttrs(gid string, checkpointID int64) []any {
	return []any{"gid", gid, "checkpoint", checkpointID, "restored_from", w.info.RestoredFromID,
		"table", w.opts.Table, "subtask", w.info.SubtaskIndex, "job", w.info.JobID}
}

// prepared lists the gids of the writer's prefix that are prepared in the
// current database (COMMIT PREPARED must run in the database that prepared
// the transaction), oldest first.
func (w *writer[T]) prepared(ctx context.Context) ([]string, error) {
	rows, err := w.conn.Query(ctx,
		"SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, $1) ORDER BY prepared, gid",
		w.prefix+"-")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
