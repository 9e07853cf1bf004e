package postgres

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	weir "github.com/weir-engine/weir"
)

// TestRescaleDownLeavesNothing: a job killed at one parallelism and
// restored at a smaller one, with a new job id, finishes what the subtasks
// that no longer exist prepared. The new writers start at once, as the
// runtime starts them; afterwards nothing of the prefix is prepared, the
// restored checkpoint's rows are visible once each, the later checkpoint's
// never, and each old gid was finished by exactly one writer, the one
// whose index is the old subtask's modulo the new parallelism, with a log
// line.
func TestRescaleDownLeavesNothing(t *testing.T) {
	dsn := shared.DSN
	for _, tc := range []struct{ from, to int }{{4, 2}, {5, 2}, {3, 1}, {4, 3}} {
		t.Run(fmt.Sprintf("%d to %d", tc.from, tc.to), func(t *testing.T) {
			table := newTable(t, dsn)
			o, logs := withLogs(options(dsn, table))
			s := NewSink(o)

			// The old run: checkpoint 5 completes (its committables are in
			// the checkpoint), 6 is prepared, then the process dies.
			old := make([]weir.SinkWriter[rec, Committable], tc.from)
			job := newJobID()
			for i := range old {
				old[i] = createWriter(t, s, sinkContext(job, i, tc.from, 0))
			}
			var held []Committable
			var wantKeys []string
			wantLogs := map[string]string{}
			for _, ckpt := range []int64{5, 6} {
				for i, w := range old {
					for j := range 3 {
						k := fmt.Sprintf("s%d-c%d-%d", i, ckpt, j)
						writeRec(t, w, k)
						if ckpt == 5 {
							wantKeys = append(wantKeys, k)
						}
					}
					cs := prepare(t, w, ckpt)
					if ckpt == 5 {
						held = append(held, cs...)
						wantLogs[cs[0].TransactionID] = "committed"
					} else {
						wantLogs[cs[0].TransactionID] = "rolled back"
					}
				}
			}
			for _, w := range old {
				w.Close()
			}

			// The new run, restored from checkpoint 5.
			job = newJobID()
			ws := make([]weir.SinkWriter[rec, Committable], tc.to)
			errs := make([]error, tc.to)
			var wg sync.WaitGroup
			for i := range ws {
				wg.Go(func() { ws[i], errs[i] = s.CreateWriter(testContext(t), sinkContext(job, i, tc.to, 5)) })
			}
			wg.Wait()
			for i, w := range ws {
				if errs[i] != nil {
					t.Fatalf("writer %d: %v", i, errs[i])
				}
				t.Cleanup(func() { w.Close() })
			}
			// The restored operators commit the checkpoint's committables,
			// which recovery committed already: done, once.
			if err := createCommitter(t, s).Commit(testContext(t), held); err != nil {
				t.Fatal(err)
			}

			if left := prepared(t, dsn, prefixOf(table)); len(left) > 0 {
				t.Errorf("still prepared after the restore at parallelism %d: %v", tc.to, left)
			}
			slices.Sort(wantKeys)
			if got := column(t, dsn, "SELECT key FROM "+table+" ORDER BY key"); !slices.Equal(got, wantKeys) {
				t.Errorf("rows = %v, want %v once each", got, wantKeys)
			}
			what, by := logs.finished(t)
			if !maps.Equal(what, wantLogs) {
				t.Errorf("logged %v, want %v", what, wantLogs)
			}
			prefix := prefixOf(table)
			for gid, subtask := range by {
				if old, _, _ := parseGID(prefix, gid); subtask != old%tc.to {
					t.Errorf("%s finished by subtask %d, want %d", gid, subtask, old%tc.to)
				}
			}
		})
	}
}
