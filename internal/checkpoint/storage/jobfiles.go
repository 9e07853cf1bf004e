package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Job files: small files a caller keeps in a job's directory beside its
// checkpoints, such as the record of the command that ran the job, which
// `weir run` reads to resume the same job after a crash. They are written
// atomically and durably like _metadata; this package gives their content
// no meaning. Their names start with an underscore, so they never look like
// a checkpoint, shared or task-owned directory, and Discard never touches
// them.

// maxJobFile bounds what ReadJobFile reads: job files are small records.
const maxJobFile = 1 << 20

// checkJobFileName checks the name of a job file: a safe segment that
// starts with an underscore.
func checkJobFileName(name string) error {
	if !strings.HasPrefix(name, "_") || name == MetadataFile {
		return fmt.Errorf("%w: job file name %q: want a name starting with '_', other than %s", ErrInvalid, name, MetadataFile)
	}
	if err := checkSegment(name); err != nil {
		return fmt.Errorf("%w: job file name: %w", ErrInvalid, err)
	}
	return nil
}

// WriteJobFile stores data as the file name of job jobID's directory,
// atomically and durably, replacing an earlier version.
func (s *Storage) WriteJobFile(ctx context.Context, jobID, name string, data []byte) error {
	job, err := s.jobKey(jobID)
	if err != nil {
		return fmt.Errorf("write job file: %w", err)
	}
	if err := checkJobFileName(name); err != nil {
		return fmt.Errorf("write job file: %w", err)
	}
	if err := s.store.put(ctx, joinKey(job, name), bytes.NewReader(data)); err != nil {
		return fmt.Errorf("write job file %s: %w", s.store.locate(joinKey(job, name)), err)
	}
	return nil
}

// ReadJobFile returns the content of the file name of job jobID's
// directory; a missing file gives an error wrapping ErrNotFound.
func (s *Storage) ReadJobFile(ctx context.Context, jobID, name string) ([]byte, error) {
	job, err := s.jobKey(jobID)
	if err != nil {
		return nil, fmt.Errorf("read job file: %w", err)
	}
	if err := checkJobFileName(name); err != nil {
		return nil, fmt.Errorf("read job file: %w", err)
	}
	key := joinKey(job, name)
	r, err := s.store.get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read job file %s: %w", s.store.locate(key), err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxJobFile+1))
	if err != nil {
		return nil, fmt.Errorf("read job file %s: %w", s.store.locate(key), err)
	}
	if len(b) > maxJobFile {
		return nil, fmt.Errorf("read job file %s: %w: longer than %d bytes", s.store.locate(key), ErrCorrupt, maxJobFile)
	}
	return b, nil
}

// JobIDs lists the names under the storage root that can be job
// directories (savepoint directories under the root are among them when
// the default savepoint directory is used; they have no job files). A
// missing root has none.
func (s *Storage) JobIDs(ctx context.Context) ([]string, error) {
	names, err := s.store.list(ctx, s.root)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("list jobs in %s: %w", s.Root(), err)
	}
	var out []string
	for _, n := range names {
		n = strings.TrimSuffix(n, "/")
		if checkSegment(n) == nil && !strings.HasPrefix(n, "_") {
			out = append(out, n)
		}
	}
	return out, nil
}

// JobLocation returns the location of job jobID's directory, for messages.
func (s *Storage) JobLocation(jobID string) string {
	return s.store.locate(joinKey(s.root, jobID))
}
