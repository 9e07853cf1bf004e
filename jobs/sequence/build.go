package sequence

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
	"github.com/weir-engine/weir/connector/kafka"
	"github.com/weir-engine/weir/connector/postgres"
)

// Job builds the whole job into env from its command-line arguments:
//
//	--keys K --records-per-key N [--rate R] [--short-source-records M]
//	[--fail-after N] --output DIR
//	[--sink file|postgres --postgres-dsn DSN --postgres-table T [--postgres-txn-prefix P]]
//	[--sink kafka --kafka-brokers HOST:PORT,... --topic T [--kafka-delivery G] [--kafka-transaction-timeout D]]
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
//
// The Kafka sink writes each line as a record's value, keyed by the key
// (so each key's lines stay in order in one partition), to topic T, with
// delivery guarantee G (exactly-once, at-least-once or none; default
// exactly-once) and the default transactional id prefix
// weir-<T>-sink, the same for every run of the command: running it again
// after a crash aborts what the crashed run left open. A transaction
// timeout D not longer than --checkpoint-interval is refused.
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
	fs.StringVar(&sink, "sink", "file", "sink: file, postgres or kafka")
	fs.StringVar(&dsn, "postgres-dsn", "", "PostgreSQL `DSN` of the postgres sink")
	fs.StringVar(&table, "postgres-table", "weir_sequence", "`table` of the postgres sink")
	fs.StringVar(&prefix, "postgres-txn-prefix", "", "`prefix` of the postgres sink's prepared transactions, the same for every run of one job (default weir-<database>.<table>-sink)")
	var kf kafkaFlags
	kf.register(fs)
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
	case "kafka":
		opts, err := kf.options(env)
		if err != nil {
			return err
		}
		k, err := kafka.SinkTo(counts, opts)
		if err != nil {
			return err
		}
		k.Name("kafka sink").UID(SinkUID)
	default:
		return fmt.Errorf("--sink %q: want file, postgres or kafka", sink)
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

// kafkaFlags are the flags of the Kafka sink.
type kafkaFlags struct {
	brokers, topic, delivery string
	txnTimeout               time.Duration
}

func (f *kafkaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.brokers, "kafka-brokers", "", "Kafka brokers `HOST:PORT,...` of the kafka sink")
	fs.StringVar(&f.topic, "topic", "", "`topic` of the kafka sink")
	fs.StringVar(&f.delivery, "kafka-delivery", string(kafka.ExactlyOnce), "delivery guarantee of the kafka sink: exactly-once, at-least-once or none")
	fs.DurationVar(&f.txnTimeout, "kafka-transaction-timeout", 0, "transaction timeout (transaction.timeout.ms) of the exactly-once kafka sink (default 15m)")
}

func (f *kafkaFlags) options(env *weir.Env) (kafka.SinkOptions[Count], error) {
	if f.brokers == "" || f.topic == "" {
		return kafka.SinkOptions[Count]{}, errors.New("--kafka-brokers and --topic are required for the kafka sink")
	}
	g, err := kafka.ParseDeliveryGuarantee(f.delivery)
	if err != nil {
		return kafka.SinkOptions[Count]{}, fmt.Errorf("--kafka-delivery: %w", err)
	}
	return KafkaOptions(strings.Split(f.brokers, ","), f.topic, g, f.txnTimeout, env.Options().Logger), nil
}

// KafkaOptions are the Kafka sink's options: each line a record's value,
// keyed by the line's key.
func KafkaOptions(brokers []string, topic string, g kafka.DeliveryGuarantee, txnTimeout time.Duration, logger *slog.Logger) kafka.SinkOptions[Count] {
	return kafka.SinkOptions[Count]{
		Brokers: brokers, Topic: topic, DeliveryGuarantee: g, TransactionTimeout: txnTimeout, Logger: logger,
		Serializer: func(c Count) (*kgo.Record, error) {
			return &kgo.Record{Key: []byte(c.Key), Value: []byte(c.String())}, nil
		},
	}
}
