package postgres

import (
	"maps"
	"slices"
	"testing"
)

// gidSpec is a gid of the prefix under test.
type gidSpec struct {
	subtask int
	ckpt    int64
}

// TestRecovery leaves prepared transactions as earlier runs would and
// checks what a new writer commits, rolls back and leaves alone, and that
// it logs each gid it finishes. Each prepared transaction inserted one row
// keyed by its gid.
func TestRecovery(t *testing.T) {
	dsn := shared.DSN
	for _, tc := range []struct {
		name        string
		left        []gidSpec // leftovers of the prefix
		subtask     int       // the new writer
		parallelism int
		restored    int64
		committed   []gidSpec // visible afterwards
		stillThere  []gidSpec // still prepared afterwards (owned by others)
	}{
		{
			name: "restore commits up to the checkpoint and rolls back the rest",
			left: []gidSpec{{0, 4}, {0, 5}, {0, 6}, {0, 7}}, subtask: 0, parallelism: 1, restored: 5,
			committed: []gidSpec{{0, 4}, {0, 5}},
		},
		{
			name: "fresh start rolls back everything",
			left: []gidSpec{{0, 1}, {0, 2}, {0, 9}}, subtask: 0, parallelism: 1, restored: 0,
		},
		{
			name: "a subtask finishes only its own",
			left: []gidSpec{{0, 3}, {1, 3}, {1, 4}}, subtask: 1, parallelism: 2, restored: 3,
			committed: []gidSpec{{1, 3}}, stillThere: []gidSpec{{0, 3}},
		},
		{
			name: "scaled down from 4 to 2: subtask 1 takes over old subtask 3",
			left: []gidSpec{{0, 5}, {1, 5}, {2, 5}, {3, 5}, {1, 6}, {3, 6}}, subtask: 1, parallelism: 2, restored: 5,
			committed: []gidSpec{{1, 5}, {3, 5}}, stillThere: []gidSpec{{0, 5}, {2, 5}},
		},
		{
			name: "scaled down from 6 to 1 on a fresh start",
			left: []gidSpec{{0, 2}, {3, 2}, {5, 1}}, subtask: 0, parallelism: 1, restored: 0,
		},
		{
			name: "scaled up from 1 to 3: subtask 0 keeps its own",
			left: []gidSpec{{0, 2}, {0, 3}}, subtask: 0, parallelism: 3, restored: 2,
			committed: []gidSpec{{0, 2}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table := newTable(t, dsn)
			prefix := prefixOf(table)
			gid := func(g gidSpec) string { return makeGID(prefix, g.subtask, g.ckpt) }
			for _, g := range tc.left {
				prepareByHand(t, dsn, table, gid(g))
			}
			// Others' transactions, which recovery must not touch: of a
			// prefix that extends this one (as a uid extending the uid
			// gives), of another database, and a gid of the prefix that is
			// not of the form <prefix>-<subtask>-<checkpoint>.
			others := []string{
				makeGID(defaultPrefix("postgres", table, "pg-sink-2"), tc.subtask, 1),
				makeGID(defaultPrefix("other", table, "pg-sink"), tc.subtask, 1),
				prefix + "-" + "x-1",
			}
			for _, g := range others {
				prepareByHand(t, dsn, table, g)
			}
			// mine lists what is prepared under this prefix, less the
			// others' gids that share it as a string prefix.
			mine := func() []string {
				return slices.DeleteFunc(prepared(t, dsn, prefix), func(g string) bool { return slices.Contains(others, g) })
			}
			t.Cleanup(func() {
				for _, g := range append(others, mine()...) {
					exec(t, dsn, "ROLLBACK PREPARED "+quoteLiteral(g))
				}
			})

			o, logs := withLogs(options(dsn, table))
			createWriter(t, NewSink(o), sinkContext(newJobID(), tc.subtask, tc.parallelism, tc.restored))

			var wantKeys, wantPrepared []string
			wantLogs := map[string]string{}
			for _, g := range tc.left {
				switch {
				case slices.Contains(tc.committed, g):
					wantKeys = append(wantKeys, gid(g))
					wantLogs[gid(g)] = "committed"
				case slices.Contains(tc.stillThere, g):
					wantPrepared = append(wantPrepared, gid(g))
				default:
					wantLogs[gid(g)] = "rolled back"
				}
			}
			slices.Sort(wantKeys)
			slices.Sort(wantPrepared)
			if got := keys(t, dsn, table); !slices.Equal(got, wantKeys) {
				t.Errorf("committed = %v, want %v", got, wantKeys)
			}
			if got := mine(); !slices.Equal(got, wantPrepared) {
				t.Errorf("still prepared = %v, want %v", got, wantPrepared)
			}
			for _, g := range others {
				if len(prepared(t, dsn, g)) != 1 {
					t.Errorf("another sink's %s was touched", g)
				}
			}
			if got, _ := logs.finished(t); !maps.Equal(got, wantLogs) {
				t.Errorf("logged %v, want %v", got, wantLogs)
			}
		})
	}
}
