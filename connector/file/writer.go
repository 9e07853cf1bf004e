package file

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// writer writes one subtask's lines. It opens a part file at the first
// element after a checkpoint (never eagerly, so a subtask that receives
// nothing more, as after a savepoint barrier, creates no file), and hands
// it over as a committable at the next one.
type writer[T any] struct {
	format func(T) string
	dir    string
	// next names the next part file to open.
	next    partName
	lineage *lineage
	// f and w are the open pending file, path its path.
	f    *os.File
	w    *bufio.Writer
	path string
	cur  partName
}

func (w *writer[T]) Write(_ context.Context, v T) error {
	if w.f == nil {
		w.cur = w.next
		w.next.seq++
		path := filepath.Join(w.dir, w.cur.pending())
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("file sink: %w", err)
		}
		w.f, w.w, w.path = f, bufio.NewWriterSize(f, 64<<10), path
	}
	w.w.WriteString(w.format(v)) // a write error sticks: WriteByte returns it
	if err := w.w.WriteByte('\n'); err != nil {
		return fmt.Errorf("file sink: write %s: %w", w.path, err)
	}
	return nil
}

func (w *writer[T]) Flush(context.Context, bool) error {
	if w.w == nil {
		return nil
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("file sink: write %s: %w", w.path, err)
	}
	return nil
}

func (w *writer[T]) PrepareCommit(_ context.Context, id int64) ([]Committable, error) {
	if w.f == nil {
		return nil, nil
	}
	if err := w.w.Flush(); err != nil {
		return nil, fmt.Errorf("file sink: checkpoint %d: write %s: %w", id, w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		return nil, fmt.Errorf("file sink: checkpoint %d: sync %s: %w", id, w.path, err)
	}
	if err := w.f.Close(); err != nil {
		return nil, fmt.Errorf("file sink: checkpoint %d: close %s: %w", id, w.path, err)
	}
	c := Committable{Pending: w.path, Final: filepath.Join(w.dir, w.cur.String())}
	w.f, w.w, w.path = nil, nil, ""
	return []Committable{c}, nil
}

// SnapshotState implements weir.StatefulSinkWriter: it records how many
// part files this writer opened, all of them pre-committed by now, so that
// a restored job knows that the files it opened after are not referenced.
func (w *writer[T]) SnapshotState(int64) ([]byte, error) {
	return json.Marshal(writerState{Dir: w.dir, Job: w.next.job, Subtask: w.next.subtask, Attempt: w.next.attempt, Next: w.next.seq, Root: w.next.root})
}

// AllCommitted implements weir.CleaningSinkWriter: it removes the pending
// files earlier attempts of the job left behind, and its own.
func (w *writer[T]) AllCommitted(context.Context) error {
	return w.lineage.discard(true)
}

// Close removes the part file that is open: no checkpoint references it,
// so it would never be committed.
func (w *writer[T]) Close() error {
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	if rerr := os.Remove(w.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = errors.Join(err, fmt.Errorf("file sink: remove %s: %w", w.path, rerr))
	}
	w.f, w.w, w.path = nil, nil, ""
	return err
}
