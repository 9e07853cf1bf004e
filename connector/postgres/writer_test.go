package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	weir "github.com/weir-engine/weir"
)

// TestWritePrepareCommit follows one subtask through three checkpoints:
// rows are invisible until their checkpoint's commit, then all visible.
func TestWritePrepareCommit(t *testing.T) {
	dsn := shared.DSN
	table := newTable(t, dsn)
	s := NewSink(options(dsn, table))
	job := newJobID()
	w := createWriter(t, s, sinkContext(job, 0, 1, 0))
	c := createCommitter(t, s)
	ctx := testContext(t)

	writeN(t, w, 0, 2500) // two full batches are copied in before the prepare
	if n := count(t, dsn, table); n != 0 {
		t.Fatalf("%d rows visible before prepare", n)
	}
	cs := prepare(t, w, 1)
	want := Committable{TransactionID: "weir-postgres." + table + "-pg-sink-0-1", CheckpointID: 1, Subtask: 0}
	if len(cs) != 1 || cs[0].XID == 0 {
		t.Fatalf("committables = %+v, want one with an xid", cs)
	}
	if got := cs[0]; got.TransactionID != want.TransactionID || got.CheckpointID != 1 || got.Subtask != 0 {
		t.Fatalf("committable = %+v, want %+v", got, want)
	}
	if n := count(t, dsn, table); n != 0 {
		t.Fatalf("%d rows visible after prepare, before commit", n)
	}
	if got := prepared(t, dsn, prefixOf(table)); len(got) != 1 || got[0] != want.TransactionID {
		t.Fatalf("prepared = %v, want [%s]", got, want.TransactionID)
	}

	// The next checkpoint's rows go into a new transaction.
	writeN(t, w, 2500, 10)
	if err := c.Commit(ctx, cs); err != nil {
		t.Fatal(err)
	}
	if n := count(t, dsn, table); n != 2500 {
		t.Fatalf("%d rows visible after commit, want 2500", n)
	}
	cs2 := prepare(t, w, 2)
	if n := count(t, dsn, table); n != 2500 {
		t.Fatalf("%d rows visible before the second commit, want 2500", n)
	}
	if err := c.Commit(ctx, cs2); err != nil {
		t.Fatal(err)
	}
	if n := count(t, dsn, table); n != 2510 {
		t.Fatalf("%d rows after the second commit, want 2510", n)
	}

	// Nothing written: nothing to commit.
	if cs3 := prepare(t, w, 3); len(cs3) != 0 {
		t.Fatalf("prepare with nothing written = %+v, want none", cs3)
	}
	if got := prepared(t, dsn, prefixOf(table)); len(got) != 0 {
		t.Fatalf("still prepared: %v", got)
	}
	// Every key's sequence numbers arrived once, with count = seq+1.
	var bad int
	withConn(t, dsn, func(ctx context.Context, c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT count(*) FROM "+table+" WHERE count <> seq+1 OR key <> 'k' || (seq % 10)").Scan(&bad)
	})
	if bad != 0 {
		t.Fatalf("%d rows with wrong values", bad)
	}
}

func TestFirstPrepareWithNothingWritten(t *testing.T) {
	w := createWriter(t, NewSink(options(shared.DSN, newTable(t, shared.DSN))), sinkContext(newJobID(), 0, 1, 0))
	if cs := prepare(t, w, 1); len(cs) != 0 {
		t.Fatalf("committables = %+v, want none", cs)
	}
}

// TestCloseRollsBack: an open transaction dies with the writer; a prepared
// one stays for the committer.
func TestCloseRollsBack(t *testing.T) {
	dsn := shared.DSN
	table := newTable(t, dsn)
	job := newJobID()
	s := NewSink(options(dsn, table))
	w, err := s.CreateWriter(testContext(t), sinkContext(job, 0, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	writeN(t, w, 0, 5)
	cs := prepare(t, w, 1)
	writeN(t, w, 5, 7)
	if err := w.Flush(testContext(t), true); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if got := prepared(t, dsn, prefixOf(table)); len(got) != 1 || got[0] != cs[0].TransactionID {
		t.Fatalf("prepared = %v, want [%s]", got, cs[0].TransactionID)
	}
	if err := createCommitter(t, s).Commit(testContext(t), cs); err != nil {
		t.Fatal(err)
	}
	if n := count(t, dsn, table); n != 5 {
		t.Fatalf("%d rows, want the 5 of the prepared transaction", n)
	}
}

func TestWriteChecksRow(t *testing.T) {
	o := options(shared.DSN, newTable(t, shared.DSN))
	o.Row = func(r rec) []any { return []any{r.Key} }
	w := createWriter(t, NewSink(o), sinkContext(newJobID(), 0, 1, 0))
	err := w.Write(testContext(t), rec{Key: "a"})
	if err == nil || !strings.Contains(err.Error(), "1 values for 3 columns") || !strings.Contains(err.Error(), o.Table) {
		t.Fatalf("Write = %v, want an arity error naming the table", err)
	}
}

func TestCopyErrorNamesTable(t *testing.T) {
	o := options(shared.DSN, newTable(t, shared.DSN))
	o.Row = func(r rec) []any { return []any{r.Key, "not a number", r.Seq} }
	w := createWriter(t, NewSink(o), sinkContext(newJobID(), 0, 1, 0))
	if err := w.Write(testContext(t), rec{Key: "a"}); err != nil {
		t.Fatal(err)
	}
	_, err := w.PrepareCommit(testContext(t), 1)
	if err == nil || !strings.Contains(err.Error(), "copy 1 rows into "+o.Table) {
		t.Fatalf("PrepareCommit = %v, want a copy error naming the table", err)
	}
}

// TestCreateTableInParallel: every subtask runs the DDL; the advisory lock
// keeps concurrent CREATE TABLE IF NOT EXISTS from failing.
func TestCreateTableInParallel(t *testing.T) {
	dsn := shared.DSN
	table := fmt.Sprintf("created_%d", tables.Add(1))
	o := options(dsn, "public."+table)
	o.CreateTable = "CREATE TABLE IF NOT EXISTS public." + table + " (key text, seq bigint, count bigint); " +
		"CREATE INDEX IF NOT EXISTS " + table + "_key ON public." + table + " (key)"
	s := NewSink(o)
	job := newJobID()
	const parallelism = 4
	ws := make([]weir.SinkWriter[rec, Committable], parallelism)
	errs := make([]error, parallelism)
	var wg sync.WaitGroup
	for i := range parallelism {
		wg.Go(func() { ws[i], errs[i] = s.CreateWriter(testContext(t), sinkContext(job, i, parallelism, 0)) })
	}
	wg.Wait()
	c := createCommitter(t, s)
	for i, w := range ws {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		writeN(t, w, i*10, 10)
		if err := c.Commit(testContext(t), prepare(t, w, 1)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, dsn, table); n != 40 {
		t.Fatalf("%d rows, want 40", n)
	}
}
