// Package postgres is an exactly-once PostgreSQL sink: each checkpoint's
// rows become visible together, once, even across failures, restores and
// rescaling. It is Weir's two-phase-commit Sink (see weir.Sink) built on
// PostgreSQL's own two-phase commit, PREPARE TRANSACTION and COMMIT
// PREPARED.
//
//	sink := postgres.NewSink(postgres.Options[Event]{
//		DSN:     "postgres://weir@db:5432/app",
//		Table:   "events",
//		Columns: []string{"key", "seq", "count"},
//		Row:     func(e Event) []any { return []any{e.Key, e.Seq, e.Count} },
//	})
//
// # How it works
//
// Each writer subtask holds one connection. The first rows after a
// checkpoint open a transaction (BEGIN); rows are buffered and copied in
// with COPY (binary) every Options.BatchSize rows, and at each Flush. COPY
// was measured against batched INSERTs (BenchmarkWrite) and takes about
// half the time a row. At a checkpoint's
// snapshot, PrepareCommit runs PREPARE TRANSACTION with the gid
//
//	weir-<jobID>-<operatorUID>-<subtask>-<checkpointID>
//
// and returns it as a Committable, which the runtime keeps in the
// checkpoint. From then on the transaction belongs to no session: it
// survives the writer, its connection and a restart of the server, and
// holds its rows invisible. When the checkpoint is complete, the Committer
// runs COMMIT PREPARED. A subtask that wrote nothing since the last
// checkpoint prepares nothing and returns no committable. Close rolls back
// an open, unprepared transaction. Invalid options are reported by
// TryNewSink, or by CreateWriter and CreateCommitter for NewSink.
//
// # Idempotent commit: what a missing gid means
//
// COMMIT PREPARED of a gid that is not prepared fails with SQLSTATE 42704,
// both when it was committed and when it was rolled back; PostgreSQL keeps
// no history of gids. The committer treats 42704 as "already committed",
// which holds because of who can finish a gid: a committable exists only
// for a transaction prepared for a checkpoint, it is committed only once
// that checkpoint completed, and only the committer and the recovery below
// finish gids, and recovery rolls back only gids of checkpoints after the
// restored one, of which no committable is ever committed. So after a
// restore the committer may re-commit what was committed before the
// failure, and sees 42704: done. To catch an outside ROLLBACK PREPARED
// (an operator cleaning up), the Committable also carries the
// transaction's xid: on 42704 the committer asks pg_xact_status, and
// "aborted" returns ErrRolledBack, since those rows are lost; when the
// status is too old to know, the gid's absence is taken as committed.
// Other errors (the server is down, the connection broke) are returned
// wrapped with the gid, checkpoint and table; the runtime retries later,
// and the committer reconnects.
//
// # Recovery
//
// CreateWriter lists pg_prepared_xacts for gids of the same job and
// operator uid (in the current database). Those of checkpoints up to
// SinkContext.RestoredFromID are committed: their checkpoint completed,
// but the commit may not have run. Later ones are rolled back: their
// checkpoint never completed, and the restored job writes their rows
// again. A fresh start (RestoredFromID 0) rolls back all of them. Gids of
// other jobs and operators are left alone.
//
// Rescaling: a gid's subtask may not exist any more. Each gid is owned by
// the writer whose index is the gid's subtask modulo the new parallelism
// (after going from 4 subtasks to 2, subtask 1 finishes what old subtasks 1
// and 3 prepared). The owners partition the gids, so no two writers touch
// one, and they do it before writing, so their own new transactions are
// never among them.
//
// The sink needs a stable operator uid: without one, two sinks of a job
// would share gids. A job restored under a new job id (as from a
// savepoint, if the runtime gives it a new id) does not see the old id's
// leftover prepared transactions: the committables in the savepoint are
// committed, but transactions of later, incomplete checkpoints stay
// prepared until someone rolls them back. Prepared transactions hold
// locks and keep VACUUM from removing dead rows, so watch for old ones:
//
//	SELECT gid, prepared FROM pg_prepared_xacts WHERE gid LIKE 'weir-%';
//	ROLLBACK PREPARED '<gid>';
//
// # Server requirements
//
// max_prepared_transactions (0 by default; a restart sets it) must be at
// least the sink's parallelism times the number of checkpoints in flight
// (prepared, not yet committed), plus one; CreateWriter fails when it is
// 0. The user needs INSERT on the table; committing someone else's
// prepared transaction needs the same user or a superuser.
package postgres
