package storage

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// Storage is where the snapshots of jobs live: a root directory (local) or
// key prefix (bucket) with one directory per job under it. It is safe for
// concurrent use.
type Storage struct {
	opts  Options
	local *localStore
	store objectStore // the root's store: local or a bucket
	root  string      // key of the root in store

	mu struct {
		sync.Mutex
		// buckets holds the buckets opened for locations outside the
		// root's bucket, by bucket URL, closed with the Storage.
		buckets map[string]*blobStore
		closed  bool
	}
}

// Open returns the Storage rooted at rawURL: a plain path (made absolute
// against the working directory), a file:///absolute/path URL, or the URL of
// any gocloud.dev/blob driver linked into the binary, its path being the key
// prefix of the root (e.g. "s3://bucket/checkpoints?region=eu-west-1",
// "gs://bucket/weir", "mem://" in tests). Open does not touch the store:
// directories are created by the first write, and a bad bucket is reported
// by the first operation. Close the Storage to release its buckets.
func Open(ctx context.Context, rawURL string, opts Options) (*Storage, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("open storage %s: %w", rawURL, err)
	}
	s := &Storage{opts: opts, local: &localStore{fs: opts.FS, rand: opts.Rand, log: opts.Logger}}
	s.mu.buckets = map[string]*blobStore{}
	if rawURL == "" {
		return nil, fmt.Errorf("open storage: %w: empty URL", ErrInvalid)
	}
	u, err := parseLocation(rawURL)
	if err != nil {
		return nil, fmt.Errorf("open storage %s: %w", rawURL, err)
	}
	if u == nil {
		key, err := localKey(rawURL)
		if err != nil {
			return nil, fmt.Errorf("open storage %s: %w", rawURL, err)
		}
		s.store, s.root = s.local, key
		return s, nil
	}
	base, key := bucketURL(u)
	b, err := openBlobStore(ctx, opts.URLMux, base)
	if err != nil {
		return nil, fmt.Errorf("open storage %s: %w", rawURL, err)
	}
	s.store, s.root = b, key
	return s, nil
}

// Root returns the location of the storage root.
func (s *Storage) Root() string { return s.store.locate(s.root) }

// Close releases the buckets the Storage opened. Readers returned by
// ReadState must be closed first.
func (s *Storage) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closed {
		return nil
	}
	s.mu.closed = true
	var errs []error
	for _, b := range s.mu.buckets {
		errs = append(errs, b.close())
	}
	errs = append(errs, s.store.close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close storage %s: %w", s.Root(), err)
	}
	return nil
}

// parseLocation returns the URL of a location with a scheme, with a file://
// URL turned into its path, or nil for a plain path.
func parseLocation(loc string) (*url.URL, error) {
	if !strings.Contains(loc, "://") {
		return nil, nil
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if u.Scheme != "file" {
		return u, nil
	}
	if u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("%w: file URL %q has host %q; write file:///absolute/path", ErrInvalid, loc, u.Host)
	}
	return nil, nil
}

// localKey returns the key of a plain path or file:// URL in the local
// store.
func localKey(loc string) (string, error) {
	if strings.HasPrefix(loc, "file://") {
		u, err := url.Parse(loc)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		loc = u.Path
	}
	abs, err := filepath.Abs(loc)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return strings.TrimPrefix(filepath.ToSlash(abs), "/"), nil
}

// resolve maps a location to its store and key. A location is a path or URL
// as returned by this package (absolute, in any store), or a path relative
// to the storage root.
func (s *Storage) resolve(ctx context.Context, loc string) (objectStore, string, error) {
	if loc == "" {
		return nil, "", fmt.Errorf("%w: empty location", ErrInvalid)
	}
	u, err := parseLocation(loc)
	if err != nil {
		return nil, "", err
	}
	switch {
	case u == nil && (strings.HasPrefix(loc, "file://") || filepath.IsAbs(loc)):
		key, err := localKey(loc)
		return s.local, key, err
	case u == nil:
		rel := path.Clean(filepath.ToSlash(loc))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, "", fmt.Errorf("%w: location %q leaves the storage root", ErrInvalid, loc)
		}
		return s.store, joinKey(s.root, rel), nil
	}
	base, key := bucketURL(u)
	if b, ok := s.store.(*blobStore); ok && b.base.String() == base.String() {
		return b, key, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closed {
		return nil, "", fmt.Errorf("%w: storage is closed", ErrInvalid)
	}
	if b, ok := s.mu.buckets[base.String()]; ok {
		return b, key, nil
	}
	b, err := openBlobStore(ctx, s.opts.URLMux, base)
	if err != nil {
		return nil, "", err
	}
	s.mu.buckets[base.String()] = b
	return b, key, nil
}

// jobKey returns the key of a job's directory, checking the job id.
func (s *Storage) jobKey(jobID string) (string, error) {
	if err := checkSegment(jobID); err != nil {
		return "", fmt.Errorf("%w: job id: %w", ErrInvalid, err)
	}
	return joinKey(s.root, jobID), nil
}
