package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// recover finishes the transactions that earlier attempts of this job's
// sink operator left prepared and that this subtask owns: it commits those
// of checkpoints up to the one restored from (they completed; their commit
// may not have happened) and rolls back the later ones (their checkpoints
// never completed, and the restored job writes their rows again).
//
// A gid's owner is its subtask index modulo the current parallelism: after
// scaling down from 4 to 2 subtasks, subtask 1 also finishes what old
// subtask 3 prepared. Ownership is a partition, so no two writers touch the
// same gid. Everything runs before the writer writes, so its own new
// transactions are never among them.
func (w *writer[T]) recover(ctx context.Context) error {
	gids, err := w.prepared(ctx)
	if err != nil {
		return fmt.Errorf("postgres: recover table %s: list prepared transactions: %w", w.opts.Table, err)
	}
	for _, gid := range gids {
		sub, ckpt, ok := parseGID(w.prefix, gid)
		if !ok || sub%w.info.Parallelism != w.info.SubtaskIndex {
			continue
		}
		verb := "COMMIT PREPARED "
		if ckpt > w.info.RestoredFromID {
			verb = "ROLLBACK PREPARED "
		}
		_, err := w.conn.Exec(ctx, verb+quoteLiteral(gid))
		// 42704: finished meanwhile, by the committer re-committing the
		// restored checkpoint's committables.
		if err != nil && sqlState(err) != codeUndefinedObject {
			return fmt.Errorf("postgres: recover table %s: %s%s (checkpoint %d, restored from %d): %w",
				w.opts.Table, verb, gid, ckpt, w.info.RestoredFromID, err)
		}
	}
	return nil
}

// prepared lists the gids of this job's sink operator that are prepared
// in the current database (COMMIT PREPARED must run in the database that
// prepared the transaction).
func (w *writer[T]) prepared(ctx context.Context) ([]string, error) {
	rows, err := w.conn.Query(ctx,
		"SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, $1) ORDER BY prepared",
		w.prefix)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
