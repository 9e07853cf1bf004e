package storage

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// LatestCompleted returns the newest complete checkpoint of job jobID and
// its location. It lists the job's chk-<id> directories and tries them
// newest first, skipping each one that is partial or corrupt: no
// _metadata, a _metadata that fails to decode or names another job or id,
// or a state or shared file it references that is missing or does not
// match its handle (checked as Options.Verify says). Every skipped
// checkpoint is logged at warning level with its location and the reason.
//
// Any other error (the store cannot be listed or read, a _metadata in a
// newer major format) ends the search and is returned: restoring an older
// checkpoint than the newest complete one would roll back state that
// two-phase-commit sinks may already have committed, so a failure to read
// is not a reason to go back in time. When no checkpoint is complete the
// error wraps ErrNoCheckpoint.
func (s *Storage) LatestCompleted(ctx context.Context, jobID string) (*Metadata, string, error) {
	job, err := s.jobKey(jobID)
	if err != nil {
		return nil, "", fmt.Errorf("latest completed checkpoint: %w", err)
	}
	names, err := s.store.list(ctx, job)
	if err != nil {
		return nil, "", fmt.Errorf("latest completed checkpoint of job %s: %w", jobID, err)
	}
	var ids []int64
	for _, name := range names {
		if id, ok := parseCheckpointDirName(name); ok {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] > ids[j] })
	for _, id := range ids {
		dir := joinKey(job, checkpointDirName(id))
		loc := s.store.locate(dir)
		md, err := s.checkCheckpoint(ctx, dir, jobID, id)
		if err == nil {
			return md, loc, nil
		}
		if skip := errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNotFound); !skip {
			return nil, "", fmt.Errorf("latest completed checkpoint of job %s: checkpoint %d at %s: %w", jobID, id, loc, err)
		}
		s.opts.Logger.Warn("checkpoint storage: skipping incomplete checkpoint",
			"job", jobID, "checkpoint", id, "location", loc, "reason", err.Error())
	}
	return nil, "", fmt.Errorf("job %s in %s: %w", jobID, s.Root(), ErrNoCheckpoint)
}

// checkCheckpoint reads and verifies the checkpoint in dir.
func (s *Storage) checkCheckpoint(ctx context.Context, dir, jobID string, id int64) (*Metadata, error) {
	md, err := s.readMetadata(ctx, s.store, dir)
	if err != nil {
		return nil, err
	}
	if md.JobID != jobID || md.CheckpointID != id || md.Kind != KindCheckpoint {
		return nil, fmt.Errorf("%w: %s is of job %q %v %d", ErrCorrupt, MetadataFile, md.JobID, md.Kind, md.CheckpointID)
	}
	if err := s.verify(ctx, s.store, dir, md, s.opts.Verify); err != nil {
		return nil, err
	}
	return md, nil
}

// verify checks every file md references, as mode says.
func (s *Storage) verify(ctx context.Context, store objectStore, dir string, md *Metadata, mode VerifyMode) error {
	loc := store.locate(dir)
	var err error
	md.eachStream(func(h StreamHandle) {
		if err != nil || h.IsInline() {
			return
		}
		if mode == VerifyFull {
			err = s.VerifyState(ctx, loc, h)
			return
		}
		err = checkSize(ctx, store, handleKey(dir, h.Path), h.Size)
	})
	// Incremental checkpoints reference a shared file from several
	// handles; it is read once.
	seen := map[string]bool{}
	md.eachShared(func(f SharedFile) {
		if err != nil || seen[f.Path] {
			return
		}
		seen[f.Path] = true
		if mode == VerifyFull && f.HasCRC {
			err = s.VerifyShared(ctx, loc, f)
			return
		}
		err = checkSize(ctx, store, handleKey(dir, f.Path), f.Size)
	})
	return err
}

func checkSize(ctx context.Context, store objectStore, key string, want int64) error {
	n, err := store.size(ctx, key)
	if err != nil {
		return err
	}
	if n != want {
		return fmt.Errorf("%w: %s has %d bytes, its handle records %d", ErrCorrupt, store.locate(key), n, want)
	}
	return nil
}
