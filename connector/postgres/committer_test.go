package postgres

import (
	"errors"
	"testing"

	weir "github.com/weir-engine/weir"
)

// TestCommitIsIdempotent commits the same committables again, from the
// same committer and from a new one (as after a restore): no error, and
// the rows are there once.
func TestCommitIsIdempotent(t *testing.T) {
	dsn := shared.DSN
	table := newTable(t, dsn)
	s := NewSink(options(dsn, table))
	w := createWriter(t, s, sinkContext(newJobID(), 0, 1, 0))
	writeN(t, w, 0, 100)
	cs := prepare(t, w, 1)
	c := createCommitter(t, s)
	for i, c := range []weir.Committer[Committable]{c, c, createCommitter(t, s)} {
		if err := c.Commit(testContext(t), cs); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		if n := count(t, dsn, table); n != 100 {
			t.Fatalf("after commit %d: %d rows, want 100", i, n)
		}
	}
}

// TestCommitOfMissingGID: a gid that is not prepared is done when it was
// committed, and an error when it was rolled back behind the sink's back.
func TestCommitOfMissingGID(t *testing.T) {
	dsn := shared.DSN
	for _, tc := range []struct {
		name    string
		finish  string // what happens to the gid before Commit
		noXID   bool   // committable from before xids were recorded
		wantErr error
	}{
		{"committed", "COMMIT PREPARED", false, nil},
		{"rolled back", "ROLLBACK PREPARED", false, ErrRolledBack},
		{"rolled back, xid unknown", "ROLLBACK PREPARED", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table := newTable(t, dsn)
			s := NewSink(options(dsn, table))
			w := createWriter(t, s, sinkContext(newJobID(), 0, 1, 0))
			writeN(t, w, 0, 3)
			cs := prepare(t, w, 7)
			if tc.noXID {
				cs[0].XID = 0
			}
			exec(t, dsn, tc.finish+" "+quoteLiteral(cs[0].TransactionID))
			err := createCommitter(t, s).Commit(testContext(t), cs)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Commit = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				t.Log(err)
			}
		})
	}
}

func TestCommitNothing(t *testing.T) {
	c := createCommitter(t, NewSink(options(shared.DSN, "unused")))
	if err := c.Commit(testContext(t), nil); err != nil {
		t.Fatal(err)
	}
}
