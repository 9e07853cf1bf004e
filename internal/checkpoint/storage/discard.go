package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Discard deletes the snapshot at location: a subsumed checkpoint, an
// aborted one, or a savepoint the user no longer wants. It removes
// _metadata first, so a discard interrupted half-way leaves a directory
// that is no longer taken as a completed snapshot, then every other file in
// the directory, then the directory. It never deletes files outside the
// directory: shared files are the SharedStateRegistry's (see DeleteShared),
// task-owned files the task's. The location must name a chk-<id> or
// savepoint-* directory; deleting a missing snapshot is not an error.
func (s *Storage) Discard(ctx context.Context, location string) error {
	store, dir, err := s.snapshotDir(ctx, location)
	if err != nil {
		return fmt.Errorf("discard %s: %w", location, err)
	}
	if _, base := splitKey(dir); !isSnapshotDirName(base) {
		return fmt.Errorf("discard %s: %w: not a checkpoint or savepoint directory", location, ErrInvalid)
	}
	if err := store.remove(ctx, joinKey(dir, MetadataFile)); err != nil {
		return fmt.Errorf("discard %s: %w", location, err)
	}
	if err := store.removeDir(ctx, dir); err != nil {
		return fmt.Errorf("discard %s: %w", location, err)
	}
	return nil
}

// DeleteShared deletes shared files of job jobID, as reported by
// SharedStateRegistry.Unregister. Each file must be in the job's shared/
// directory; missing files are not an error (a repeated delete after a
// crash). It tries every file and returns the joined errors.
func (s *Storage) DeleteShared(ctx context.Context, jobID string, files []SharedFile) error {
	job, err := s.jobKey(jobID)
	if err != nil {
		return fmt.Errorf("delete shared files: %w", err)
	}
	var errs []error
	for _, f := range files {
		name, ok := strings.CutPrefix(f.Path, sharedPrefix)
		if !ok || checkSegment(name) != nil {
			errs = append(errs, fmt.Errorf("delete shared file %q: %w: not in shared/", f.Path, ErrInvalid))
			continue
		}
		if err := s.store.remove(ctx, joinKey(job, f.Path)); err != nil {
			errs = append(errs, fmt.Errorf("delete shared file %q of job %s: %w", f.Path, jobID, err))
		}
	}
	return errors.Join(errs...)
}
