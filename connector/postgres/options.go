package postgres

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
)

// DefaultBatchSize is the number of rows a writer buffers before it copies
// them into the table.
const DefaultBatchSize = 1000

// Options configures the sink.
type Options[T any] struct {
	// DSN is the connection string, a URL or key=value pairs as libpq
	// takes them. The server must allow prepared transactions
	// (max_prepared_transactions > 0). Required.
	DSN string
	// Table is the table to write, optionally schema-qualified
	// ("schema.table"); each part is quoted as an identifier. Required.
	Table string
	// Columns are the table's columns that Row fills, in order. Required.
	Columns []string
	// Row turns an element into the values of Columns. The values are
	// encoded in PostgreSQL's binary format, so their Go types must fit the
	// columns' types (int64 or int for bigint, string for text, time.Time
	// for timestamptz, ...). Required.
	Row func(T) []any
	// CreateTable is optional DDL that each writer runs once when it
	// starts, before it writes, in a transaction of its own and under an
	// advisory lock so that parallel writers do not race. It must be
	// idempotent: CREATE TABLE IF NOT EXISTS ...
	CreateTable string
	// BatchSize is the number of rows buffered before a COPY into the
	// table's open transaction; 0 means DefaultBatchSize.
	BatchSize int
	// TransactionPrefix names the sink's prepared transactions, as the
	// transactional id prefix of Flink's Kafka sink does: their gids are
	// <TransactionPrefix>-<subtask>-<checkpointID>. When a writer starts,
	// it finishes every transaction of the prefix that an earlier run left
	// prepared (see "Recovery" in the package doc), so the prefix must stay
	// the same from one run of the job to the next, and belong to one
	// running job at a time. At most MaxTransactionPrefixLen bytes of ASCII
	// letters, digits, '.', '_', '-' and '~'. Empty means the default,
	// weir-<database>.<table>-<operator uid> (parts that are long or hold
	// other characters replaced by a hash), which is stable across runs
	// and distinct for every sink that writes a table under its own uid.
	TransactionPrefix string
	// Logger receives a line for each prepared transaction that a writer
	// commits or rolls back when it starts; nil means slog.Default().
	Logger *slog.Logger
}

// EnsureDefaults fills in the defaults of unset fields.
func (o *Options[T]) EnsureDefaults() {
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Validate reports what is missing or wrong.
func (o *Options[T]) Validate() error {
	var errs []error
	if o.DSN == "" {
		errs = append(errs, errors.New("DSN is empty"))
	} else if _, err := pgx.ParseConfig(o.DSN); err != nil {
		errs = append(errs, fmt.Errorf("DSN: %w", err))
	}
	if _, err := tableIdent(o.Table); err != nil {
		errs = append(errs, err)
	}
	if len(o.Columns) == 0 {
		errs = append(errs, errors.New("no Columns"))
	}
	for i, c := range o.Columns {
		if c == "" {
			errs = append(errs, fmt.Errorf("column %d is empty", i))
		}
	}
	if o.Row == nil {
		errs = append(errs, errors.New("row function is nil"))
	}
	if o.TransactionPrefix != "" {
		if err := checkPrefix(o.TransactionPrefix); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("postgres: sink options for table %q: %w", o.Table, err)
	}
	return nil
}

// tableIdent splits a table name into the parts of a qualified identifier.
func tableIdent(table string) (pgx.Identifier, error) {
	if table == "" {
		return nil, errors.New("table is empty")
	}
	parts := strings.Split(table, ".")
	if len(parts) > 2 {
		return nil, fmt.Errorf("table %q: want table or schema.table", table)
	}
	for _, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("table %q has an empty part", table)
		}
	}
	return pgx.Identifier(parts), nil
}

// Committable is what a writer hands to the committer at a checkpoint: a
// transaction prepared with PREPARE TRANSACTION. It is kept in checkpoints
// and savepoints, so its fields are plain.
type Committable struct {
	// TransactionID is the gid of the prepared transaction:
	// <prefix>-<subtask>-<checkpointID> (see Options.TransactionPrefix).
	TransactionID string
	// CheckpointID is the checkpoint whose data the transaction holds.
	CheckpointID int64
	// Subtask is the index of the writer that prepared it.
	Subtask int
	// XID is the transaction's 64-bit id (pg_current_xact_id), with which
	// the committer tells a transaction that was committed from one that
	// was rolled back once its gid is gone; 0 if unknown.
	XID uint64
}
