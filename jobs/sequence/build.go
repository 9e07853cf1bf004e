package sequence

import (
	"errors"
	"flag"
	"fmt"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
	"github.com/weir-engine/weir/connector/postgres"
)

// Job builds the whole job into env from its command-line arguments:
//
//	--keys K --records-per-key N [--rate R] [--short-source-records M]
//	[--fail-after N] --output DIR
//	[--sink file|postgres --postgres-dsn DSN --postgres-table T [--postgres-txn-prefix P]]
//
// The file sink writes exactly-once part files under DIR; the PostgreSQL
// sink writes the rows (key text, seq bigint, count bigint) into table T
// (default weir_sequence), created if missing. Its prepared transactions
// are named from P, by default the sink's default prefix
// weir-<database>.<T>-sink, which stays the same from one run of the
// command to the next: running the command again after a crash rolls
// back what the crashed run left prepared. Two runs of the job at once
// against one table need different prefixes. The sink logs each
// transaction it finishes at start to the engine's logger.
func Job(env *weir.Env, args []string) error {
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	var cfg Config
	var output, sink, dsn, table, prefix string
	fs.IntVar(&cfg.Keys, "keys", 10, "number of keys `K`")
	fs.Int64Var(&cfg.RecordsPerKey, "records-per-key", 1000, "records `N` per key of the long source")
	fs.Float64Var(&cfg.Rate, "rate", 0, "limit of the long source in records/s over all subtasks (0: none)")
	fs.Int64Var(&cfg.ShortRecords, "short-source-records", 0, "records `M` of the short source, which finishes early (0: none)")
	fs.Int64Var(&cfg.FailAfter, "fail-after", 0, "fail the counting subtask 0 once after `N` records (a recovery test)")
	fs.StringVar(&output, "output", "", "output `DIR` of the file sink")
	fs.StringVar(&sink, "sink", "file", "sink: file or postgres")
	fs.StringVar(&dsn, "postgres-dsn", "", "PostgreSQL `DSN` of the postgres sink")
	fs.StringVar(&table, "postgres-table", "weir_sequence", "`table` of the postgres sink")
	fs.StringVar(&prefix, "postgres-txn-prefix", "", "`prefix` of the postgres sink's prepared transactions, the same for every run of one job (default weir-<database>.<table>-sink)")
	if err := weir.ParseJobFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	counts, err := Build(env, cfg)
	if err != nil {
		return err
	}
	switch sink {
	case "file":
		if output == "" {
			return errors.New("--output DIR is required for the file sink")
		}
		weir.SinkTo(counts, file.NewSink(output, Count.String)).Name("file sink").UID(SinkUID)
	case "postgres":
		if dsn == "" {
			return errors.New("--postgres-dsn is required for the postgres sink")
		}
		opts := PostgresOptions(dsn, table)
		opts.TransactionPrefix, opts.Logger = prefix, env.Options().Logger
		pg, err := postgres.TryNewSink(opts)
		if err != nil {
			return err
		}
		weir.SinkTo(counts, pg).Name("postgres sink").UID(SinkUID)
	default:
		return fmt.Errorf("--sink %q: want file or postgres", sink)
	}
	return env.Err()
}

// SinkUID is the operator uid of the job's sink. The PostgreSQL sink's
// default transaction prefix holds it, so it must not change.
const SinkUID = "sink"

// PostgresOptions are the PostgreSQL sink's options for table, with the
// default transaction prefix.
func PostgresOptions(dsn, table string) postgres.Options[Count] {
	return postgres.Options[Count]{
		DSN: dsn, Table: table, Columns: []string{"key", "seq", "count"},
		Row:         func(c Count) []any { return []any{c.Key, c.Seq, c.Count} },
		CreateTable: fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (key text NOT NULL, seq bigint NOT NULL, count bigint NOT NULL)", table),
	}
}
