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
//	<prefix>-<subtask>-<checkpointID>
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
// finish gids, and recovery rolls back only gids that the restored state
// does not hold (of checkpoints after the restored one, or all of them on
// a fresh start), of which no committable is ever committed. So after a
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
// # Transaction prefix
//
// The prefix names the sink's transactions, as the transactional id prefix
// names those of Flink's Kafka sink: Options.TransactionPrefix, or by
// default
//
//	weir-<database>.<table>-<operatorUID>
//
// (a part that is long or holds other characters than letters, digits and
// '_' is replaced by '~' and a hash). It does not depend on the job id, so
// a job run again after a crash, resumed from a checkpoint or a savepoint,
// or restarted with the same command, with a new job id each time, finds
// what the earlier run left prepared. The sink needs a stable operator uid
// for the default (set one with UID); a job that writes a table from two
// sinks gives them different uids.
//
// A prefix belongs to one running job at a time, as in Flink: two jobs with
// the same prefix would finish each other's transactions. Each writer holds
// a session advisory lock on its prefix and subtask from its start to its
// Close, so a second job with the same prefix fails to start its writers
// (after waiting up to 10 s for the lock, since the connection of a writer
// that just died may take a moment to go away) with an error that names the
// prefix and the session that holds it, before it touches a transaction.
// Two jobs that write one table under the same sink uid (two copies of a
// job, or a blue/green deployment) need their own TransactionPrefix.
//
// # Recovery
//
// CreateWriter lists pg_prepared_xacts for gids of the prefix in the
// current database, and finishes each, with a log line (Options.Logger)
// naming the gid: those of checkpoints up to SinkContext.RestoredFromID
// are committed, since their checkpoint completed and the restored state
// holds their committables, but the commit may not have run; every other
// one is rolled back: later checkpoints never completed, and the restored
// job writes their rows again. A fresh start (RestoredFromID 0) rolls back
// all of them. So however often a job is killed, the next start leaves no
// prepared transaction of its prefix behind except what its own writers
// prepare. Gids of other prefixes are left alone.
//
// This rests on checkpoint ids growing along a job's history: a restored
// job's checkpoints continue after the id it restored from, so whatever a
// later run of the same history prepared has a larger id. Restoring a
// checkpoint or savepoint of another history (of a different job, or one
// older than a fresh start) into a prefix that still holds prepared
// transactions would commit those up to the restored id: give the other
// history its own prefix, or roll them back first (below).
//
// Rescaling: a gid's subtask may not exist any more. Each gid is owned by
// the writer whose index is the gid's subtask modulo the new parallelism
// (after going from 4 subtasks to 2, subtask 1 finishes what old subtasks 1
// and 3 prepared; each subtask i finishes the gids of subtasks i, i+p,
// i+2p, ...). The owners partition the gids, so no two writers touch one,
// and they do it before writing, so their own new transactions are never
// among them. The restored committables, which the runtime redistributes
// among the subtasks on its own terms, may be committed by another subtask
// at the same time: whichever commits second finds the gid gone, which
// is fine (see above).
//
// Prepared transactions hold locks and keep VACUUM from removing dead
// rows. To see them, or to clean up after a sink that will not run again
// (and the gids of versions before the prefix, weir-<jobID>-<uid>-...):
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
