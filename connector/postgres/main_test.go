package postgres

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	weir "github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/pgtest"
	"go.uber.org/goleak"
)

// shared is the server of the tests that do not stop it; tests that stop
// or kill a server start their own.
var shared *pgtest.Server

func TestMain(m *testing.M) {
	srv, err := pgtest.New()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared = srv
	code := m.Run()
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// rec is the element type of the tests: the sequence job's rows.
type rec struct {
	Key string
	Seq int64
}

func recRow(r rec) []any { return []any{r.Key, r.Seq, r.Seq + 1} }

var tables atomic.Int64

// newTable creates a fresh table (key text, seq bigint, count bigint).
func newTable(t testing.TB, dsn string) string {
	t.Helper()
	name := fmt.Sprintf("sink_%d", tables.Add(1))
	exec(t, dsn, "CREATE TABLE "+name+" (key text, seq bigint, count bigint)")
	return name
}

func options(dsn, table string) Options[rec] {
	return Options[rec]{DSN: dsn, Table: table, Columns: []string{"key", "seq", "count"}, Row: recRow}
}

// prefixOf is the default transaction prefix of the tests' sinks, which
// write to the database postgres under the uid pg-sink.
func prefixOf(table string) string { return defaultPrefix("postgres", table, "pg-sink") }

// logs records a sink's log lines.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// withLogs makes the options log into a new recorder.
func withLogs(o Options[rec]) (Options[rec], *logs) {
	l := &logs{}
	o.Logger = slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return o, l
}

// finished returns what recovery logged it did to each gid, "committed"
// or "rolled back", and which subtask did it.
func (l *logs) finished(t testing.TB) (what map[string]string, by map[string]int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	what, by = map[string]string{}, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var r struct {
			Level, Msg, GID string
			Subtask         int
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if r.Level != "INFO" {
			continue
		}
		if _, twice := what[r.GID]; twice {
			t.Errorf("%s finished twice", r.GID)
		}
		switch {
		case strings.Contains(r.Msg, "committed"):
			what[r.GID] = "committed"
		case strings.Contains(r.Msg, "rolled back"):
			what[r.GID] = "rolled back"
		default:
			continue
		}
		by[r.GID] = r.Subtask
	}
	return what, by
}

// newJobID returns 32 hex digits, as the runtime's job ids.
func newJobID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func sinkContext(job string, subtask, parallelism int, restored int64) weir.SinkContext {
	return weir.SinkContext{JobID: job, OperatorUID: "pg-sink", SubtaskIndex: subtask,
		Parallelism: parallelism, RestoredFromID: restored}
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// withConn runs f on a connection of its own, closed afterwards.
func withConn(t testing.TB, dsn string, f func(ctx context.Context, c *pgx.Conn) error) {
	t.Helper()
	ctx := testContext(t)
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := f(ctx, c); err != nil {
		t.Fatal(err)
	}
}

func exec(t testing.TB, dsn string, sqls ...string) {
	t.Helper()
	withConn(t, dsn, func(ctx context.Context, c *pgx.Conn) error {
		for _, sql := range sqls {
			if _, err := c.Exec(ctx, sql); err != nil {
				return fmt.Errorf("%s: %w", sql, err)
			}
		}
		return nil
	})
}

// count returns the rows that other sessions see in the table.
func count(t testing.TB, dsn, table string) int {
	t.Helper()
	var n int
	withConn(t, dsn, func(ctx context.Context, c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	})
	return n
}

// column returns the first column of a query's rows.
func column(t testing.TB, dsn, sql string, args ...any) []string {
	t.Helper()
	var out []string
	withConn(t, dsn, func(ctx context.Context, c *pgx.Conn) error {
		rows, err := c.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return out
}

// keys returns the distinct keys visible in the table, sorted.
func keys(t testing.TB, dsn, table string) []string {
	t.Helper()
	return column(t, dsn, "SELECT DISTINCT key FROM "+table+" ORDER BY key")
}

// prepared returns the gids prepared on the server that start with prefix.
func prepared(t testing.TB, dsn, prefix string) []string {
	t.Helper()
	return column(t, dsn, "SELECT gid FROM pg_prepared_xacts WHERE starts_with(gid, $1) ORDER BY gid", prefix)
}

// prepareByHand leaves a prepared transaction that inserted one row whose
// key is the gid, as a writer of an earlier attempt would have.
func prepareByHand(t testing.TB, dsn, table, gid string) {
	t.Helper()
	exec(t, dsn, "BEGIN",
		fmt.Sprintf("INSERT INTO %s VALUES (%s, 0, 1)", table, quoteLiteral(gid)),
		"PREPARE TRANSACTION "+quoteLiteral(gid))
}

// createWriter creates a writer and closes it at the end of the test.
func createWriter(t testing.TB, s weir.Sink[rec, Committable], info weir.SinkContext) weir.SinkWriter[rec, Committable] {
	t.Helper()
	w, err := s.CreateWriter(testContext(t), info)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func createCommitter(t testing.TB, s weir.Sink[rec, Committable]) weir.Committer[Committable] {
	t.Helper()
	c, err := s.CreateCommitter(testContext(t), weir.SinkContext{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// writeN writes n records with keys k<i mod 10>.
func writeN(t testing.TB, w weir.SinkWriter[rec, Committable], from, n int) {
	t.Helper()
	ctx := testContext(t)
	for i := from; i < from+n; i++ {
		if err := w.Write(ctx, rec{Key: fmt.Sprintf("k%d", i%10), Seq: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
}

// prepare flushes and prepares, as the runtime does at a snapshot.
func prepare(t testing.TB, w weir.SinkWriter[rec, Committable], checkpointID int64) []Committable {
	t.Helper()
	ctx := testContext(t)
	if err := w.Flush(ctx, false); err != nil {
		t.Fatal(err)
	}
	cs, err := w.PrepareCommit(ctx, checkpointID)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
