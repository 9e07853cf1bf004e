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

// DiscardUnfinished deletes the snapshot directory at location, into
// which a task wrote after the snapshot ended without completing (it
// failed or was aborted, or the job stopped): its files, and whatever else
// the directory holds, for a snapshot that did not complete is garbage. A
// late write may even have made the directory again after Abort removed
// it. A directory with _metadata is a completed snapshot and stays: that
// gives an error wrapping ErrCommitted. Files in the job's shared/ and
// taskowned/ directories are not touched (DeleteShared). A missing
// directory is not an error.
func (s *Storage) DiscardUnfinished(ctx context.Context, location string) error {
	store, dir, err := s.snapshotDir(ctx, location)
	if err != nil {
		return fmt.Errorf("discard unfinished snapshot %s: %w", location, err)
	}
	if _, base := splitKey(dir); !isSnapshotDirName(base) {
		return fmt.Errorf("discard unfinished snapshot %s: %w: not a checkpoint or savepoint directory", location, ErrInvalid)
	}
	switch _, err := store.size(ctx, joinKey(dir, MetadataFile)); {
	case err == nil:
		return fmt.Errorf("discard unfinished snapshot %s: %w: it has %s", location, ErrCommitted, MetadataFile)
	case !errors.Is(err, ErrNotFound):
		return fmt.Errorf("discard unfinished snapshot %s: %w", location, err)
	}
	if err := store.removeDir(ctx, dir); err != nil {
		return fmt.Errorf("discard unfinished snapshot %s: %w", location, err)
	}
	return nil
}
