package file

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

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

// CreateWriter implements weir.Sink. A writer of a restored job, or of a
// job restarted after a failure, first discards the pending files the
// earlier run left behind that no committable references (see the package
// documentation).
func (s *Sink[T]) CreateWriter(_ context.Context, info weir.SinkContext) (weir.SinkWriter[T, Committable], error) {
	if s.Format == nil || s.Dir == "" {
		return nil, errors.New("file sink: Dir and Format must be set")
	}
	// Committables and writer states carry absolute paths, so that a job
	// restored elsewhere finds the files.
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("file sink: output directory %q: %w", s.Dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("file sink: %w", err)
	}
	log := info.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	self := partName{operator: sanitize(info.OperatorUID), job: shortJob(info.JobID), subtask: info.SubtaskIndex, attempt: info.AttemptNumber}
	l, err := newLineage(dir, self, info, log)
	if err != nil {
		return nil, err
	}
	if info.RestoredFromID > 0 || info.AttemptNumber > 0 {
		if err := l.discard(false); err != nil {
			return nil, fmt.Errorf("file sink: discard what the earlier run left: %w", err)
		}
	}
	return &writer[T]{format: s.Format, dir: dir, next: l.self, lineage: l}, nil
}

// CreateCommitter implements weir.Sink. The committer touches only the
// files of the committables it is given, in the directories they are in.
func (s *Sink[T]) CreateCommitter(context.Context, weir.SinkContext) (weir.Committer[Committable], error) {
	return committer{}, nil
}
