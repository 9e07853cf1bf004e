package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// WriterAt returns a writer of the state files of snapshot id of job jobID
// in the directory at location, one that CreateCheckpointWriter or
// CreateSavepointWriter chose (their Location): how a task writes its own
// state into the snapshot whose metadata the JobMaster commits. It does no
// I/O. The writer is for state files only: Commit and Abort belong to the
// JobMaster's writer of the same snapshot.
func (s *Storage) WriterAt(ctx context.Context, jobID string, id int64, kind Kind, location string) (*CheckpointDir, error) {
	if err := checkSegment(jobID); err != nil {
		return nil, fmt.Errorf("open writer at %s: %w: job id: %w", location, ErrInvalid, err)
	}
	store, dir, err := s.snapshotDir(ctx, location)
	if err != nil {
		return nil, fmt.Errorf("open writer at %s: %w", location, err)
	}
	parent, base := splitKey(dir)
	d := &CheckpointDir{s: s, store: store, dir: dir, jobID: jobID, id: id, kind: kind}
	switch kind {
	case KindCheckpoint:
		if base != checkpointDirName(id) {
			return nil, fmt.Errorf("open writer at %s: %w: not the directory of checkpoint %d", location, ErrInvalid, id)
		}
		d.job = parent // shared/ and taskowned/ are the job's
	case KindSavepoint:
		if !strings.HasPrefix(base, savepointDirPrefix) {
			return nil, fmt.Errorf("open writer at %s: %w: not a savepoint directory", location, ErrInvalid)
		}
		d.job = dir // a savepoint holds every file it references
	default:
		return nil, fmt.Errorf("open writer at %s: %w: kind %v", location, ErrInvalid, kind)
	}
	return d, nil
}

// DiscardState deletes the files of an acknowledgement whose snapshot
// ended without it (failed, or the job stopped): the streams it wrote
// into the snapshot directory at st.Location. Files in the job's shared/ are the
// directory are the SharedStateRegistry's (DeleteShared), task-owned ones the task's; inline
// streams have no file. Missing files are not an error.
func (s *Storage) DiscardState(ctx context.Context, st TaskState) error {
	store, dir, err := s.snapshotDir(ctx, st.Location)
	if err != nil {
		return fmt.Errorf("discard state in %s: %w", st.Location, err)
	}
	var errs []error
	remove := func(h StreamHandle) {
		if h.IsEmpty() || h.IsInline() || outsideDir(h.Path) {
			return
		}
		if err := checkSegment(h.Path); err != nil {
			errs = append(errs, fmt.Errorf("discard state %q in %s: %w: %w", h.Path, st.Location, ErrInvalid, err))
			return
		}
		if err := store.remove(ctx, joinKey(dir, h.Path)); err != nil {
			errs = append(errs, fmt.Errorf("discard state %s in %s: %w", h.Path, st.Location, err))
		}
	}
	for _, o := range st.Operators {
		for _, k := range o.Keyed {
			remove(k.Stream)
			for _, f := range k.Shared {
				// A file of the backend that this snapshot does not share
				// (a savepoint's) is in its directory.
				remove(StreamHandle{Path: f.Path})
			}
		}
		for _, h := range o.ChannelState {
			remove(h)
		}
	}
	return errors.Join(errs...)
}
