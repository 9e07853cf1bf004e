package sequence_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/pgtest"
	"github.com/weir-engine/weir/jobs/sequence"
)

// The sequence job with the PostgreSQL sink, failing once, aligned and
// unaligned: the committed rows are exactly-once.
func TestExactlyOncePostgres(t *testing.T) {
	srv := pgtest.Start(t)
	for i, tt := range []struct {
		unaligned bool
		backend   weir.StateBackendKind
	}{{false, weir.HashMap}, {true, weir.HashMap}, {false, weir.Pebble}, {true, weir.Pebble}} {
		t.Run(fmt.Sprintf("%v-unaligned=%v", tt.backend, tt.unaligned), func(t *testing.T) {
			unaligned := tt.unaligned
			table := fmt.Sprintf("seq_%d", i)
			cfg := sequence.Config{Keys: 8, RecordsPerKey: 300, Rate: 10000, ShortRecords: 12, FailAfter: 900}
			env := weir.NewEnv(weir.WithParallelism(2),
				weir.WithStateBackend(weir.StateBackend{Kind: tt.backend, Incremental: true, LocalDir: t.TempDir()}),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 50 * time.Millisecond, Unaligned: unaligned}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(3, 10*time.Millisecond)))
			args := []string{"--keys", fmt.Sprint(cfg.Keys), "--records-per-key", fmt.Sprint(cfg.RecordsPerKey), "--rate", "10000",
				"--short-source-records", "12", "--fail-after", "900", "--sink", "postgres", "--postgres-dsn", srv.DSN, "--postgres-table", table}
			if err := sequence.Job(env, args); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := env.Execute(ctx, "sequence")
			if err != nil {
				t.Fatal(err)
			}
			if res.Restarts != 1 {
				t.Errorf("restarts = %d, want 1", res.Restarts)
			}
			lines := queryLines(t, srv.DSN, table)
			if err := sequence.Verify(cfg, lines); err != nil {
				t.Fatalf("PostgreSQL rows are not exactly-once: %v", err)
			}
			// No transaction is left prepared.
			if n := preparedCount(t, srv.DSN); n != 0 {
				t.Errorf("%d prepared transactions left behind", n)
			}
		})
	}
}

func queryLines(t *testing.T, dsn, table string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT key, seq, count FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var c sequence.Count
		if err := rows.Scan(&c.Key, &c.Seq, &c.Count); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, c.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// FLIP-147 with PostgreSQL: a bounded job with a one-hour checkpoint
// interval ends with every row committed (the final checkpoint commits
// them) and no prepared transaction left.
func TestBoundedPostgresJobCommitsEverything(t *testing.T) {
	srv := pgtest.Start(t)
	cfg := sequence.Config{Keys: 6, RecordsPerKey: 500, ShortRecords: 9}
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	args := []string{"--keys", "6", "--records-per-key", "500", "--short-source-records", "9",
		"--sink", "postgres", "--postgres-dsn", srv.DSN, "--postgres-table", "bounded"}
	if err := sequence.Job(env, args); err != nil {
		t.Fatal(err)
	}
	res, err := env.Execute(testContext(t), "sequence")
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, queryLines(t, srv.DSN, "bounded")); err != nil {
		t.Fatalf("rows: %v", err)
	}
	if res.Checkpoints.Completed < 1 {
		t.Fatalf("%d checkpoints: the final one is missing", res.Checkpoints.Completed)
	}
}
