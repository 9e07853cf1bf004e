package jobmaster

import (
	"errors"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
)

// The history keeps the latest checkpoint.HistorySize records, newest
// first, with their acknowledgements and outcomes; the latest savepoint
// and failure, and the restore, stay after their records were dropped.
func TestHistory(t *testing.T) {
	var h history
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	h.restoredFrom(7, true, "/sp/savepoint-7", at(0))
	h.triggered(1, checkpoint.Savepoint, at(1), 4)
	h.acked(1, at(2))
	h.completed(1, at(3), [2]int64{100, 40}, "/sp/savepoint-1")
	h.triggered(2, checkpoint.Checkpoint, at(4), 4)
	h.failed(2, at(9), errors.New("expired"))
	for id := int64(3); id <= 12; id++ {
		h.triggered(id, checkpoint.Checkpoint, at(int(id)*10), 4)
		for range 4 {
			h.acked(id, at(int(id)*10+1))
		}
		if id < 12 {
			h.completed(id, at(int(id)*10+2), [2]int64{id, id}, "/cp/chk")
		}
	}
	var s checkpoint.Stats
	h.fill(&s)
	if len(s.History) != checkpoint.HistorySize || s.History[0].ID != 12 || s.History[9].ID != 3 {
		t.Fatalf("history %v, want 12..3", ids(s.History))
	}
	if r := s.History[0]; r.Status != checkpoint.StatusInProgress || r.Acknowledged != 4 || r.LatestAck != at(121) || s.InProgress != 1 {
		t.Errorf("in progress %+v (%d in progress)", r, s.InProgress)
	}
	if r := s.History[1]; r.Status != checkpoint.StatusCompleted || r.Triggered != at(110) || r.Ended != at(112) || r.Size != 11 || r.Subtasks != 4 {
		t.Errorf("completed %+v", r)
	}
	if sp := s.LatestSavepoint; sp == nil || sp.ID != 1 || sp.Location != "/sp/savepoint-1" || sp.Size != 100 || sp.Uploaded != 40 {
		t.Errorf("latest savepoint %+v", sp)
	}
	if f := s.LatestFailed; f == nil || f.ID != 2 || f.Failure != "expired" || f.Ended != at(9) {
		t.Errorf("latest failed %+v", f)
	}
	if r := s.Restored; r == nil || r.ID != 7 || !r.Savepoint || s.Restores != 1 {
		t.Errorf("restored %+v (%d restores)", r, s.Restores)
	}
	// The stats are copies: the loop goes on changing its history.
	s.History[0].Acknowledged = 99
	h.acked(12, at(200))
	var again checkpoint.Stats
	h.fill(&again)
	if again.History[0].Acknowledged != 5 {
		t.Errorf("acknowledged %d after one more ack, want 5", again.History[0].Acknowledged)
	}
}

func ids(rs []checkpoint.Record) []int64 {
	var out []int64
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}
