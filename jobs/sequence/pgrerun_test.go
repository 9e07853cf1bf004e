package sequence_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/postgres"
	"github.com/weir-engine/weir/internal/pgtest"
	"github.com/weir-engine/weir/jobs/sequence"
)

// Running the same `sequence --sink postgres` command again after runs of
// it were killed (each with its own job id, as a new process has) rolls
// back what they left prepared, logs each gid, and commits nothing of it:
// the rows are exactly-once and no prepared transaction is left. With the
// default prefix and with --postgres-txn-prefix.
func TestRunAgainAfterKilledRuns(t *testing.T) {
	srv := pgtest.Start(t)
	for i, tc := range []struct{ name, prefix string }{{"default prefix", ""}, {"--postgres-txn-prefix", "seq-rerun"}} {
		t.Run(tc.name, func(t *testing.T) {
			table := fmt.Sprintf("rerun_%d", i)
			opts := sequence.PostgresOptions(srv.DSN, table)
			opts.TransactionPrefix = tc.prefix
			var left []string
			for range 3 {
				left = killedRun(t, opts)
			}

			cfg := sequence.Config{Keys: 4, RecordsPerKey: 200}
			var logs syncBuffer
			env := weir.NewEnv(weir.WithParallelism(2),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 50 * time.Millisecond}),
				weir.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			args := []string{"--keys", "4", "--records-per-key", "200",
				"--sink", "postgres", "--postgres-dsn", srv.DSN, "--postgres-table", table}
			if tc.prefix != "" {
				args = append(args, "--postgres-txn-prefix", tc.prefix)
			}
			if err := sequence.Job(env, args); err != nil {
				t.Fatal(err)
			}
			if _, err := env.Execute(testContext(t), "sequence"); err != nil {
				t.Fatal(err)
			}
			if err := sequence.Verify(cfg, queryLines(t, srv.DSN, table)); err != nil {
				t.Fatalf("rows after running the command again: %v", err)
			}
			if n := preparedCount(t, srv.DSN); n != 0 {
				t.Errorf("%d prepared transactions left behind", n)
			}
			for _, gid := range left {
				if !slices.ContainsFunc(strings.Split(logs.String(), "\n"), func(l string) bool {
					return strings.Contains(l, "rolled back a prepared transaction") && strings.Contains(l, " gid="+gid+" ")
				}) {
					t.Errorf("no log line names %s as rolled back:\n%s", gid, logs.String())
				}
			}
		})
	}
}

// killedRun leaves what a `weir run sequence --sink postgres` killed at a
// checkpoint leaves: at parallelism 2, a new job id, transactions prepared
// for checkpoints 1 and 2 (neither committed) holding rows that would
// duplicate the output if they were ever committed. It returns their gids.
func killedRun(t *testing.T, opts postgres.Options[sequence.Count]) []string {
	t.Helper()
	opts.Logger = slog.New(slog.DiscardHandler)
	sink, err := postgres.TryNewSink(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	job := fmt.Sprintf("%032x", time.Now().UnixNano())
	var gids []string
	for sub := range 2 {
		w, err := sink.CreateWriter(ctx, weir.SinkContext{JobID: job, OperatorUID: sequence.SinkUID, SubtaskIndex: sub, Parallelism: 2})
		if err != nil {
			t.Fatal(err)
		}
		for ckpt := int64(1); ckpt <= 2; ckpt++ {
			if err := w.Write(ctx, sequence.Count{Key: fmt.Sprintf("k%d", sub), Seq: ckpt - 1, Count: ckpt}); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(ctx, false); err != nil {
				t.Fatal(err)
			}
			cs, err := w.PrepareCommit(ctx, ckpt)
			if err != nil {
				t.Fatal(err)
			}
			gids = append(gids, cs[0].TransactionID)
		}
		if err := w.Close(); err != nil { // the connection dies with the process
			t.Fatal(err)
		}
	}
	return gids
}

func preparedCount(t *testing.T, dsn string) int {
	t.Helper()
	ctx := testContext(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_xacts").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// syncBuffer is a bytes.Buffer for a logger that tasks write from their
// own goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
