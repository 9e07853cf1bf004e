package postgres

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	weir "github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/pgtest"
)

// TestCrashedRunsLeaveNoPreparedTransactions plays 40 runs of one job, each
// killed as by SIGKILL and each with a new job id, as `weir run` gives a
// resumed or repeated command: each run restores from the checkpoint the
// previous one completed (every tenth is a fresh start, the same command run
// again without a checkpoint), commits what that checkpoint holds, completes
// one checkpoint of its own, prepares the next, which never completes, and
// dies with a transaction open. The parallelism changes from run to run.
//
// After every start no transaction any run prepared is left prepared (the
// restored checkpoint's are committed, the rest rolled back), so the server's
// 64 prepared transactions never run out, and in the end each row of a
// committed checkpoint is visible exactly once, rows of checkpoints that
// never completed never. Before the prefix was stable, each run left the
// previous run's incomplete checkpoint prepared, and PREPARE TRANSACTION
// failed with SQLSTATE 53200 after about twenty runs.
func TestCrashedRunsLeaveNoPreparedTransactions(t *testing.T) {
	srv := pgtest.Start(t) // its own server: the shared one's slots stay free
	dsn := srv.DSN
	table := newTable(t, dsn)
	s := NewSink(options(dsn, table))

	var (
		ours     = map[string]bool{} // every gid a run prepared
		want     = map[string]bool{} // keys that must be visible, once each
		held     []Committable       // the committables in the restored checkpoint
		heldKeys []string            // their rows, if not committed yet
		restored int64
	)
	// start opens a run's writers as the sink operator does: the restored
	// committables are committed (on odd runs after the writers' recovery,
	// which then finds them committed already), and nothing is left.
	start := func(run, parallelism int) []weir.SinkWriter[rec, Committable] {
		t.Helper()
		c := createCommitter(t, s)
		commitHeld := func() {
			if err := c.Commit(testContext(t), held); err != nil {
				t.Fatalf("run %d: commit the restored checkpoint %d: %v", run, restored, err)
			}
		}
		if run%2 == 0 {
			commitHeld()
		}
		job := newJobID()
		ws := make([]weir.SinkWriter[rec, Committable], parallelism)
		for i := range ws {
			ws[i] = createWriter(t, s, sinkContext(job, i, parallelism, restored))
		}
		if run%2 == 1 {
			commitHeld()
		}
		for _, k := range heldKeys {
			want[k] = true
		}
		if left := slices.DeleteFunc(prepared(t, dsn, ""), func(g string) bool { return !ours[g] }); len(left) > 0 {
			t.Errorf("run %d (restored from %d, parallelism %d): %d transactions of earlier runs still prepared, e.g. %s",
				run, restored, parallelism, len(left), left[0])
		}
		return ws
	}
	// checkpoint writes two rows per writer and prepares them.
	checkpoint := func(run int, ws []weir.SinkWriter[rec, Committable], id int64) (cs []Committable, keys []string) {
		t.Helper()
		for i, w := range ws {
			for j := range 2 {
				k := fmt.Sprintf("r%d-s%d-c%d-%d", run, i, id, j)
				writeRec(t, w, k)
				keys = append(keys, k)
			}
			for _, c := range prepare(t, w, id) {
				ours[c.TransactionID] = true
				cs = append(cs, c)
			}
		}
		return cs, keys
	}

	const runs = 40
	for run := range runs {
		if run%10 == 0 { // the same command again: a fresh start
			restored, held, heldKeys = 0, nil, nil
		}
		parallelism := 1 + run%3
		ws := start(run, parallelism)
		completed := restored + 1
		cs, keys := checkpoint(run, ws, completed)
		if run%4 == 1 { // the commit ran before the kill
			if err := createCommitter(t, s).Commit(testContext(t), cs); err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				want[k] = true
			}
			keys = nil
		}
		checkpoint(run, ws, completed+1) // never completes
		for i, w := range ws {           // an open transaction dies with the process
			writeRec(t, w, fmt.Sprintf("r%d-s%d-open", run, i))
			if err := w.Flush(testContext(t), false); err != nil {
				t.Fatal(err)
			}
			w.Close()
		}
		restored, held, heldKeys = completed, cs, keys
	}
	start(runs, 2)

	got := map[string]bool{}
	for _, k := range column(t, dsn, "SELECT key FROM "+table+" GROUP BY key HAVING count(*) = 1") {
		got[k] = true
	}
	if n := count(t, dsn, table); n != len(got) || !maps.Equal(got, want) {
		t.Fatalf("%d rows, %d keys once; want the %d rows of the committed checkpoints once each", n, len(got), len(want))
	}
	t.Logf("%d runs, %d transactions prepared, %d rows committed once each", runs+1, len(ours), len(want))
}

// writeRec writes one record with the key.
func writeRec(t testing.TB, w weir.SinkWriter[rec, Committable], key string) {
	t.Helper()
	if err := w.Write(testContext(t), rec{Key: key}); err != nil {
		t.Fatal(err)
	}
}
