package postgres

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	weir "github.com/weir-engine/weir"
)

// TestTransactionPrefix: the gids carry an explicit prefix, and two sinks
// that write one table under different prefixes leave each other alone,
// even when one of them starts afresh.
func TestTransactionPrefix(t *testing.T) {
	dsn := shared.DSN
	table := newTable(t, dsn)
	sinkWith := func(prefix string) weir.Sink[rec, Committable] {
		o := options(dsn, table)
		o.TransactionPrefix = prefix
		return NewSink(o)
	}
	a, b := sinkWith("orders"), sinkWith("orders-export")
	wa := createWriter(t, a, sinkContext(newJobID(), 0, 1, 0))
	writeRec(t, wa, "a")
	csA := prepare(t, wa, 3)
	if len(csA) != 1 || csA[0].TransactionID != "orders-0-3" {
		t.Fatalf("committables = %+v, want one of gid orders-0-3", csA)
	}
	wb := createWriter(t, b, sinkContext(newJobID(), 0, 1, 0))
	writeRec(t, wb, "b")
	csB := prepare(t, wb, 3)
	wb.Close()

	// b starts again from nothing: it rolls back its own, not a's.
	createWriter(t, b, sinkContext(newJobID(), 0, 1, 0))
	if got := prepared(t, dsn, "orders"); !slices.Equal(got, []string{"orders-0-3"}) {
		t.Fatalf("prepared = %v, want a's orders-0-3 only (b's %s rolled back)", got, csB[0].TransactionID)
	}
	if err := createCommitter(t, a).Commit(testContext(t), csA); err != nil {
		t.Fatal(err)
	}
	if got := keys(t, dsn, table); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("rows = %v, want a's", got)
	}
}

// TestPrefixBelongsToOneJob: a second job given the prefix of a running
// one fails to start its writer 0 with an error that says so, and touches
// none of the first job's prepared transactions; its writer 1, a subtask
// the first job does not have, starts. Once the first job's writer is
// gone, the second one's writer 0 starts.
func TestPrefixBelongsToOneJob(t *testing.T) {
	dsn := shared.DSN
	table := newTable(t, dsn)
	s := NewSink(options(dsn, table))
	s.(*sink[rec]).claimWait = 100 * time.Millisecond

	first := createWriter(t, s, sinkContext(newJobID(), 0, 1, 0))
	writeRec(t, first, "first")
	cs := prepare(t, first, 7) // not committed yet: the first job runs on

	second := newJobID()
	_, err := s.CreateWriter(testContext(t), sinkContext(second, 0, 2, 0))
	if err == nil || !strings.Contains(err.Error(), "transaction prefix "+prefixOf(table)+", subtask 0, is in use by another writer") ||
		!strings.Contains(err.Error(), "weir-sink-writer") {
		t.Fatalf("CreateWriter of a second job with the same prefix = %v, want an error naming the prefix and the holder", err)
	}
	t.Log(err)
	createWriter(t, s, sinkContext(second, 1, 2, 0))
	if got := prepared(t, dsn, prefixOf(table)); !slices.Equal(got, []string{cs[0].TransactionID}) {
		t.Fatalf("prepared = %v, want the first job's %s untouched", got, cs[0].TransactionID)
	}
	if err := createCommitter(t, s).Commit(testContext(t), cs); err != nil {
		t.Fatalf("the first job's commit: %v", err)
	}

	// A writer waits for the one it replaces to go away.
	s.(*sink[rec]).claimWait = defaultClaimWait
	done := make(chan error, 1)
	go func() {
		w, err := s.CreateWriter(testContext(t), sinkContext(second, 0, 2, 0))
		if err == nil {
			err = w.Close()
		}
		done <- err
	}()
	for waiting := 0; waiting == 0; { // until it waits for the lock
		select {
		case err := <-done:
			t.Fatalf("CreateWriter returned %v while the first job's writer held the prefix", err)
		default:
		}
		withConn(t, dsn, func(ctx context.Context, c *pgx.Conn) error {
			return c.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").Scan(&waiting)
		})
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("CreateWriter after the first job's writer closed: %v", err)
	}
	if n := count(t, dsn, table); n != 1 {
		t.Fatalf("%d rows, want the first job's one", n)
	}
}
