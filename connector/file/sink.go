// Package file is Weir's exactly-once file sink.
//
// Each sink subtask writes its elements, one formatted line each, into a
// pending part file whose name starts with a dot, so that readers that skip
// hidden files (as Weir's own ReadTextFile does, and Hadoop-style tools)
// never see it. At a checkpoint the pending file is flushed, synced and
// closed, and becomes a committable; when the checkpoint completed the
// committer renames it to its visible name and syncs the directory. A
// committed file is never written again.
//
// Commit is idempotent: when the visible file exists and the pending one
// does not, the rename already happened. After a failure, pending files of
// checkpoints that never completed stay hidden and are never read. They are
// not deleted automatically: after a restore at another parallelism, the
// committables of one old subtask may be committed by any new subtask, so
// no writer can tell which hidden files are abandoned without risking one
// that is still to be committed. Names carry the operator, job, subtask
// and attempt, so an operator can find and remove them once the job is done.
package file

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/weir-engine/weir"
)

// Committable is a pre-committed part file.
type Committable struct {
	Pending string // the hidden path written
	Final   string // the visible path it is renamed to
}

// Sink writes elements as lines into part files under Dir.
type Sink[T any] struct {
	// Dir is the output directory, created if missing.
	Dir string
	// Format turns an element into its line (without newline).
	Format func(T) string
}

// NewSink returns a sink writing format(v) lines under dir.
func NewSink[T any](dir string, format func(T) string) *Sink[T] {
	return &Sink[T]{Dir: dir, Format: format}
}

// CreateWriter implements weir.Sink.
func (s *Sink[T]) CreateWriter(_ context.Context, info weir.SinkContext) (weir.SinkWriter[T, Committable], error) {
	if s.Format == nil || s.Dir == "" {
		return nil, errors.New("file sink: Dir and Format must be set")
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("file sink: %w", err)
	}
	job := info.JobID
	if len(job) > 8 {
		job = job[:8]
	}
	prefix := fmt.Sprintf("part-%s-%s-%d-%d-", sanitize(info.OperatorUID), job, info.SubtaskIndex, info.AttemptNumber)
	return &writer[T]{sink: s, prefix: prefix}, nil
}

// CreateCommitter implements weir.Sink.
func (s *Sink[T]) CreateCommitter(context.Context, weir.SinkContext) (weir.Committer[Committable], error) {
	return committer{dir: s.Dir}, nil
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '.' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, s)
}

type writer[T any] struct {
	sink   *Sink[T]
	prefix string
	seq    int
	f      *os.File
	w      *bufio.Writer
	name   string
}

func (w *writer[T]) Write(_ context.Context, v T) error {
	if w.f == nil {
		w.name = fmt.Sprintf("%s%d", w.prefix, w.seq)
		w.seq++
		f, err := os.OpenFile(filepath.Join(w.sink.Dir, "."+w.name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("file sink: %w", err)
		}
		w.f, w.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	w.w.WriteString(w.sink.Format(v))
	return w.w.WriteByte('\n')
}

func (w *writer[T]) Flush(context.Context, bool) error {
	if w.w == nil {
		return nil
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("file sink: write %s: %w", w.f.Name(), err)
	}
	return nil
}

func (w *writer[T]) PrepareCommit(_ context.Context, id int64) ([]Committable, error) {
	if w.f == nil {
		return nil, nil
	}
	if err := w.w.Flush(); err != nil {
		return nil, fmt.Errorf("file sink: checkpoint %d: write %s: %w", id, w.f.Name(), err)
	}
	if err := w.f.Sync(); err != nil {
		return nil, fmt.Errorf("file sink: checkpoint %d: sync %s: %w", id, w.f.Name(), err)
	}
	if err := w.f.Close(); err != nil {
		return nil, fmt.Errorf("file sink: checkpoint %d: close %s: %w", id, w.f.Name(), err)
	}
	c := Committable{Pending: filepath.Join(w.sink.Dir, "."+w.name), Final: filepath.Join(w.sink.Dir, w.name)}
	w.f, w.w = nil, nil
	return []Committable{c}, nil
}

func (w *writer[T]) Close() error {
	if w.f != nil {
		err := w.f.Close()
		w.f, w.w = nil, nil
		return err
	}
	return nil
}

type committer struct{ dir string }

func (c committer) Commit(_ context.Context, cs []Committable) error {
	for _, p := range cs {
		err := os.Rename(p.Pending, p.Final)
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(p.Final); serr == nil {
				continue // committed before
			}
			return fmt.Errorf("file sink: commit %s: neither pending nor committed file exists", p.Final)
		}
		if err != nil {
			return fmt.Errorf("file sink: commit %s: %w", p.Final, err)
		}
	}
	return syncDir(c.dir)
}

func (committer) Close() error { return nil }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("file sink: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("file sink: sync %s: %w", dir, err)
	}
	return nil
}
