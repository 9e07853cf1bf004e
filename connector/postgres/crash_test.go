package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/weir-engine/weir/internal/pgtest"
)

// crashes are the ways a test takes the database away.
var crashes = []struct {
	name  string
	crash func(*pgtest.Server) error
}{
	{"immediate stop", func(s *pgtest.Server) error { return s.Stop(pgtest.Immediate) }},
	{"kill", (*pgtest.Server).Kill},
}

// TestPreparedSurvivesServerCrash: the transaction of a completed
// checkpoint outlives a crash of the server and is committed by the
// recovery of the restored writer; that of an incomplete checkpoint is
// rolled back, and so is the open one.
func TestPreparedSurvivesServerCrash(t *testing.T) {
	for _, tc := range crashes {
		t.Run(tc.name, func(t *testing.T) {
			srv := pgtest.Start(t)
			dsn := srv.DSN
			table := newTable(t, dsn)
			s := NewSink(options(dsn, table))
			job := newJobID()
			w := createWriter(t, s, sinkContext(job, 0, 1, 0))
			writeN(t, w, 0, 10)
			cs1 := prepare(t, w, 1) // checkpoint 1 completes, its commit never runs
			writeN(t, w, 10, 10)
			prepare(t, w, 2) // checkpoint 2 never completes
			writeN(t, w, 20, 5)
			if err := w.Flush(testContext(t), false); err != nil { // open, unprepared
				t.Fatal(err)
			}

			if err := tc.crash(srv); err != nil {
				t.Fatal(err)
			}
			w.Close() // its connection is gone: an error, but no hang
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			if got := prepared(t, dsn, prefixOf(table)); len(got) != 2 {
				t.Fatalf("prepared after restart = %v, want checkpoints 1 and 2", got)
			}

			createWriter(t, s, sinkContext(job, 0, 1, 1)) // restored from checkpoint 1
			if n := count(t, dsn, table); n != 10 {
				t.Fatalf("%d rows after recovery, want the 10 of checkpoint 1", n)
			}
			if got := prepared(t, dsn, prefixOf(table)); len(got) != 0 {
				t.Fatalf("still prepared after recovery: %v", got)
			}
			// The restored committer commits checkpoint 1 again: done.
			if err := createCommitter(t, s).Commit(testContext(t), cs1); err != nil {
				t.Fatal(err)
			}
			if n := count(t, dsn, table); n != 10 {
				t.Fatalf("%d rows after re-commit, want 10", n)
			}
		})
	}
}

// TestServerGoneMidCommit kills the server between prepare and commit:
// Commit fails with an error that names the transaction, and succeeds once
// the server is back; every row is there once, the earlier ones too.
func TestServerGoneMidCommit(t *testing.T) {
	for _, tc := range crashes {
		t.Run(tc.name, func(t *testing.T) {
			srv := pgtest.Start(t)
			dsn := srv.DSN
			table := newTable(t, dsn)
			s := NewSink(options(dsn, table))
			w := createWriter(t, s, sinkContext(newJobID(), 0, 1, 0))
			c := createCommitter(t, s)

			writeN(t, w, 0, 10)
			cs1 := prepare(t, w, 1)
			if err := c.Commit(testContext(t), cs1); err != nil {
				t.Fatal(err)
			}
			writeN(t, w, 10, 10)
			cs2 := prepare(t, w, 2)

			if err := tc.crash(srv); err != nil {
				t.Fatal(err)
			}
			for _, attempt := range []string{"on the broken connection", "reconnecting to a stopped server"} {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				start := time.Now()
				err := c.Commit(ctx, cs2)
				cancel()
				if err == nil {
					t.Fatalf("Commit %s succeeded", attempt)
				}
				msg := err.Error()
				if !strings.Contains(msg, cs2[0].TransactionID) || !strings.Contains(msg, "checkpoint 2") || !strings.Contains(msg, table) {
					t.Errorf("Commit %s: %q does not name gid, checkpoint and table", attempt, msg)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("Commit %s took %v", attempt, d)
				}
				t.Logf("Commit %s: %v", attempt, err)
			}

			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			// The runtime retries with everything not known to be committed.
			if err := c.Commit(testContext(t), append(cs1, cs2...)); err != nil {
				t.Fatal(err)
			}
			var rows, seqs int
			withConn(t, dsn, func(ctx context.Context, c *pgx.Conn) error {
				return c.QueryRow(ctx, "SELECT count(*), count(DISTINCT seq) FROM "+table).Scan(&rows, &seqs)
			})
			if rows != 20 || seqs != 20 {
				t.Fatalf("%d rows with %d distinct sequence numbers, want 20 of each", rows, seqs)
			}
			// The writer's connection died with the server: it fails, and
			// the runtime would restart it.
			writeN(t, w, 20, 1)
			if _, err := w.PrepareCommit(testContext(t), 3); err == nil {
				t.Fatal("PrepareCommit on a connection to a killed server succeeded")
			}
		})
	}
}

// TestCommitAfterIdleRestart: the server restarts while the committer's
// connection is idle; the next Commit notices and reconnects at once.
func TestCommitAfterIdleRestart(t *testing.T) {
	for _, tc := range crashes {
		t.Run(tc.name, func(t *testing.T) {
			srv := pgtest.Start(t)
			table := newTable(t, srv.DSN)
			s := NewSink(options(srv.DSN, table))
			w := createWriter(t, s, sinkContext(newJobID(), 0, 1, 0))
			c := createCommitter(t, s)
			writeN(t, w, 0, 3)
			if err := c.Commit(testContext(t), prepare(t, w, 1)); err != nil {
				t.Fatal(err)
			}
			writeN(t, w, 3, 3)
			cs := prepare(t, w, 2)
			if err := tc.crash(srv); err != nil {
				t.Fatal(err)
			}
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			if err := c.Commit(testContext(t), cs); err != nil {
				t.Fatalf("Commit after the server came back: %v", err)
			}
			if n := count(t, srv.DSN, table); n != 6 {
				t.Fatalf("%d rows, want 6", n)
			}
		})
	}
}
