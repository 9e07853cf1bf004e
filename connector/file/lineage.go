package file

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/weir-engine/weir"
)

// writerState is what a writer checkpoints beside its committables (JSON,
// in the sink's union list state): the part files it opened before the
// checkpoint, numbers 0..Next-1, each of them pre-committed by then. A
// pending file of the same writer with a higher number was written after
// the checkpoint, and no committable references it.
type writerState struct {
	Dir     string `json:"dir"`
	Job     string `json:"job"`
	Subtask int    `json:"subtask"`
	Attempt int    `json:"attempt"`
	Next    int    `json:"next"`
	// Root is the lineage's root (absent in states of older versions).
	Root string `json:"root,omitempty"`
}

type writerKey struct {
	job              string
	subtask, attempt int
}

// lineage is what a writer knows of the runs its own continues: earlier
// attempts of its job, and the writers of the job it was restored from
// whose states it got, with the directories they wrote into. Every job of
// a lineage (SinkContext.Lineage: the chain of jobs each restored from a
// checkpoint of the one before, also jobs restored from the same
// checkpoint) writes the lineage's root into the names of its pending
// files, so that at a successful end a job recognises the pending files of
// every run of its lineage, also of runs it does not continue: a run
// restored from the same checkpoint as this one and killed before it took
// one of its own (a rerun after a crash does exactly that). By the end
// every committable this job restored has been committed, and no other run
// of the lineage runs, so what they left is garbage. Pending files of
// other lineages, and of other sinks, are never touched.
type lineage struct {
	self partName
	dirs []string
	jobs map[string]bool
	next map[writerKey]int
	// restored is set when the job started from a checkpoint: before the
	// end, only files this writer knows no checkpoint references go.
	restored bool
	log      *slog.Logger
}

func newLineage(dir string, self partName, info weir.SinkContext, log *slog.Logger) (*lineage, error) {
	l := &lineage{self: self, dirs: []string{dir}, jobs: map[string]bool{self.job: true}, next: map[writerKey]int{},
		restored: info.RestoredFromID > 0, log: log}
	root := info.Lineage
	for i, b := range info.RestoredWriterStates {
		var st writerState
		// The checkpoint holds the state: a restart would meet it again.
		if err := json.Unmarshal(b, &st); err != nil {
			return nil, fmt.Errorf("%w: file sink: restored writer state %d: %w", weir.ErrUnrecoverable, i, err)
		}
		if !filepath.IsAbs(st.Dir) || st.Next < 0 || st.Subtask < 0 || st.Attempt < 0 {
			return nil, fmt.Errorf("%w: file sink: restored writer state %d is not one this sink wrote: %s", weir.ErrUnrecoverable, i, b)
		}
		if !slices.Contains(l.dirs, st.Dir) {
			l.dirs = append(l.dirs, st.Dir)
		}
		l.jobs[st.Job] = true
		l.next[writerKey{st.Job, st.Subtask, st.Attempt}] = st.Next
		root = cmp.Or(root, st.Root, st.Job)
	}
	l.self.root = shortJob(cmp.Or(root, info.JobID))
	return l, nil
}

// orphan reports whether the pending file n is left over: written by this
// sink in a run of this lineage, and referenced by no committable still to
// be committed. Before the end, the files a restored checkpoint references
// may still be committed by any subtask, so only the files a writer whose
// state this subtask restored opened after the checkpoint go (or, when no
// checkpoint was restored, all that earlier attempts wrote); those of the
// running attempt are being written. At the end all of them are committed,
// and what is left of the lineage, and of this subtask, is garbage; the
// running attempt's other subtasks clean up their own.
func (l *lineage) orphan(n partName, atEnd bool) bool {
	switch {
	case n.operator != l.self.operator:
		return false // another sink's
	case n.job == l.self.job && n.attempt == l.self.attempt:
		return atEnd && n.subtask == l.self.subtask
	case n.job == l.self.job && n.attempt > l.self.attempt:
		return false // a later attempt cannot exist; leave what we do not understand
	case atEnd:
		return n.root == l.self.root || l.jobs[n.job]
	case n.job == l.self.job && !l.restored:
		return true // an earlier attempt, and no checkpoint references anything
	}
	next, ok := l.next[writerKey{n.job, n.subtask, n.attempt}]
	return ok && n.seq >= next
}

// discard removes the orphans in every directory of the lineage. Removing
// a file is not synced: an orphan that a crash brings back is found again
// by the next run.
func (l *lineage) discard(atEnd bool) error {
	for _, dir := range l.dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("file sink: list %s: %w", dir, err)
		}
		for _, e := range entries {
			n, ok := parsePending(e.Name())
			if !ok || e.IsDir() || !l.orphan(n, atEnd) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if err := os.Remove(p); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // another subtask removed it
				}
				return fmt.Errorf("file sink: discard %s: %w", p, err)
			}
			l.log.Info("file sink: discarded a pending file no checkpoint references", "file", p)
		}
	}
	return nil
}
