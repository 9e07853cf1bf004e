package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	weir "github.com/weir-engine/weir"
)

// ErrRolledBack is returned (wrapped) by Commit when a committable's
// transaction was rolled back by someone else: its rows are lost, and
// retrying cannot bring them back.
var ErrRolledBack = errors.New("postgres: prepared transaction was rolled back")

// SQLSTATE codes the sink acts on.
const (
	codeUndefinedObject  = "42704" // no prepared transaction with that gid
	codeLockNotAvailable = "55P03" // lock_timeout ran out
)

// NewSink returns an exactly-once sink that writes elements into a table.
// Invalid options do not panic: CreateWriter and CreateCommitter return
// the error, so the job fails when it starts. TryNewSink reports it at once.
func NewSink[T any](opts Options[T]) weir.Sink[T, Committable] {
	s, err := TryNewSink(opts)
	if err != nil {
		return &sink[T]{err: err}
	}
	return s
}

// TryNewSink is NewSink that returns invalid options as an error.
func TryNewSink[T any](opts Options[T]) (weir.Sink[T, Committable], error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts.Columns = append([]string(nil), opts.Columns...)
	table, _ := tableIdent(opts.Table)
	return &sink[T]{opts: opts, table: table, claimWait: defaultClaimWait}, nil
}

type sink[T any] struct {
	opts      Options[T]
	table     pgx.Identifier
	claimWait time.Duration // see claim
	err       error         // from NewSink's validation
}

// CreateWriter connects, claims the transaction prefix for its subtask,
// runs CreateTable and finishes the transactions of the prefix that
// earlier runs or attempts left prepared (see the package doc), then
// returns the subtask's writer.
func (s *sink[T]) CreateWriter(ctx context.Context, info weir.SinkContext) (weir.SinkWriter[T, Committable], error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := s.checkContext(info); err != nil {
		return nil, err
	}
	conn, err := connect(ctx, s.opts.DSN, "weir-sink-writer")
	if err != nil {
		return nil, fmt.Errorf("postgres: writer for table %s: %w", s.opts.Table, err)
	}
	w := &writer[T]{
		opts: s.opts, table: s.table, info: info, conn: conn, claimWait: s.claimWait,
		buf: make([]any, 0, s.opts.BatchSize*len(s.opts.Columns)),
	}
	if err := w.start(ctx); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	return w, nil
}

// CreateCommitter returns a committer; it connects at its first Commit.
func (s *sink[T]) CreateCommitter(ctx context.Context, info weir.SinkContext) (weir.Committer[Committable], error) {
	if s.err != nil {
		return nil, s.err
	}
	return &committer{dsn: s.opts.DSN, table: s.opts.Table}, nil
}

func (s *sink[T]) checkContext(info weir.SinkContext) error {
	switch {
	case info.OperatorUID == "" && s.opts.TransactionPrefix == "":
		// The default prefix holds the uid: without one, two sinks of a
		// job writing the table would share gids.
		return fmt.Errorf("postgres: writer for table %s: the sink needs a stable operator uid (set one with UID) or a TransactionPrefix", s.opts.Table)
	case info.Parallelism < 1 || info.SubtaskIndex < 0 || info.SubtaskIndex >= info.Parallelism:
		return fmt.Errorf("postgres: writer for table %s: subtask %d of parallelism %d", s.opts.Table, info.SubtaskIndex, info.Parallelism)
	case info.RestoredFromID < 0:
		return fmt.Errorf("postgres: writer for table %s: restored from checkpoint %d", s.opts.Table, info.RestoredFromID)
	}
	return nil
}

// connect opens one connection and names it in pg_stat_activity.
func connect(ctx context.Context, dsn, app string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = app
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// sqlState is the SQLSTATE of a server error, "" for other errors.
func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}
