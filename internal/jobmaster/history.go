package jobmaster

import (
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
)

// history is the record of a job's latest checkpoints and savepoints that
// the REST API shows (checkpoint.Stats.History), kept by the loop: a
// record is added when a checkpoint is triggered and filled in as it is
// acknowledged and ends. Only the latest checkpoint.HistorySize are kept.
type history struct {
	records []checkpoint.Record // oldest first
	// open holds the ids of the checkpoints in progress.
	open            map[int64]bool
	latestSavepoint *checkpoint.Record
	latestFailed    *checkpoint.Record
	restored        *checkpoint.Restore
	restores        int
}

// find returns the record of id, or nil when it was dropped or never
// triggered.
func (h *history) find(id int64) *checkpoint.Record {
	for i := range h.records {
		if h.records[i].ID == id {
			return &h.records[i]
		}
	}
	return nil
}

// triggered records the start of checkpoint id over subtasks subtasks.
func (h *history) triggered(id int64, kind checkpoint.Kind, now time.Time, subtasks int) {
	if h.open == nil {
		h.open = make(map[int64]bool)
	}
	h.open[id] = true
	h.records = append(h.records, checkpoint.Record{ID: id, Kind: kind, Status: checkpoint.StatusInProgress, Triggered: now, Subtasks: subtasks})
	if n := len(h.records) - checkpoint.HistorySize; n > 0 {
		h.records = append(h.records[:0], h.records[n:]...)
	}
}

// acked counts a subtask's acknowledgement of checkpoint id.
func (h *history) acked(id int64, now time.Time) {
	if r := h.find(id); r != nil && r.Status == checkpoint.StatusInProgress {
		r.Acknowledged++
		r.LatestAck = now
	}
}

// completed records the completion of checkpoint id at location, with
// the bytes it references and those written for it.
func (h *history) completed(id int64, now time.Time, sizes [2]int64, location string) {
	delete(h.open, id)
	r := h.find(id)
	if r == nil {
		return
	}
	r.Status, r.Ended, r.Location = checkpoint.StatusCompleted, now, location
	r.Size, r.Uploaded = sizes[0], sizes[1]
	if r.Kind.IsSavepoint() {
		c := *r
		h.latestSavepoint = &c
	}
}

// failed records the failure of checkpoint id.
func (h *history) failed(id int64, now time.Time, reason error) {
	delete(h.open, id)
	r := h.find(id)
	if r == nil {
		return
	}
	r.Status, r.Ended = checkpoint.StatusFailed, now
	if reason != nil {
		r.Failure = reason.Error()
	}
	c := *r
	h.latestFailed = &c
}

// restoredFrom records a restore from the snapshot id at location.
func (h *history) restoredFrom(id int64, savepoint bool, location string, now time.Time) {
	h.restores++
	h.restored = &checkpoint.Restore{ID: id, Savepoint: savepoint, Location: location, At: now}
}

// fill puts the history into s, newest first, copied: s leaves the loop.
func (h *history) fill(s *checkpoint.Stats) {
	s.History = make([]checkpoint.Record, 0, len(h.records))
	for i := len(h.records) - 1; i >= 0; i-- {
		s.History = append(s.History, h.records[i])
	}
	s.InProgress = len(h.open)
	s.LatestSavepoint, s.LatestFailed, s.Restores = copyOf(h.latestSavepoint), copyOf(h.latestFailed), h.restores
	s.Restored = copyOf(h.restored)
}

// copyOf returns a copy of *p, or nil.
func copyOf[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// subtaskCount is the number of subtasks of the job.
func (jm *JobMaster) subtaskCount() int {
	n := 0
	for _, v := range jm.graph.Vertices {
		n += v.Parallelism
	}
	return n
}
