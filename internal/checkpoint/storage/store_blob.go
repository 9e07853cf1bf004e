package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// blobStore keeps objects in a gocloud.dev/blob bucket. Object stores have
// no directories and no rename, but every completed write of one object is
// atomic, which is all the snapshot protocol needs: state objects first,
// _metadata last.
type blobStore struct {
	bucket *blob.Bucket
	// base is the bucket's URL without path (scheme, host and the query
	// parameters the bucket was opened with); locations are base with the
	// key as path.
	base url.URL
}

// bucketURL splits a blob URL into the URL that opens its bucket (no path)
// and the key prefix its path names.
func bucketURL(u *url.URL) (bucket url.URL, key string) {
	bucket = url.URL{Scheme: u.Scheme, Host: u.Host, RawQuery: u.RawQuery}
	return bucket, strings.Trim(u.Path, "/")
}

// driverHint names the gocloud.dev driver package a scheme needs, for the
// error when a binary does not link it.
func driverHint(scheme string) string {
	switch scheme {
	case "s3":
		return "gocloud.dev/blob/s3blob"
	case "gs":
		return "gocloud.dev/blob/gcsblob"
	case "azblob":
		return "gocloud.dev/blob/azureblob"
	case "mem":
		return "gocloud.dev/blob/memblob"
	}
	return "the gocloud.dev/blob driver for " + scheme
}

func openBlobStore(ctx context.Context, mux *blob.URLMux, base url.URL) (*blobStore, error) {
	if !mux.ValidBucketScheme(base.Scheme) {
		return nil, fmt.Errorf("%w: no blob driver for %q URLs in this binary: import _ %q in its main package (linked: %v)",
			ErrInvalid, base.Scheme, driverHint(base.Scheme), mux.BucketSchemes())
	}
	b, err := mux.OpenBucket(ctx, base.String())
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", base.String(), err)
	}
	return &blobStore{bucket: b, base: base}, nil
}

func (s *blobStore) locate(key string) string {
	u := s.base
	u.Path = "/" + key
	return u.String()
}

func (s *blobStore) close() error { return s.bucket.Close() }

func (s *blobStore) wrap(op, key string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		err = fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return fmt.Errorf("%s %s: %w", op, s.locate(key), err)
}

func (s *blobStore) put(ctx context.Context, key string, r io.Reader) error {
	// Cancelling the writer's context before Close aborts the upload, so
	// a failed copy never leaves a partial object.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, key, nil)
	if err != nil {
		return s.wrap("write", key, err)
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel()
		_ = w.Close() // reports the cancellation
		return s.wrap("write", key, err)
	}
	if err := w.Close(); err != nil {
		return s.wrap("write", key, err)
	}
	return nil
}

func (s *blobStore) get(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, s.wrap("open", key, err)
	}
	return r, nil
}

func (s *blobStore) getRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	r, err := s.bucket.NewRangeReader(ctx, key, off, n, nil)
	if err != nil {
		return nil, s.wrap("open", key, err)
	}
	return r, nil
}

func (s *blobStore) size(ctx context.Context, key string) (int64, error) {
	a, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return 0, s.wrap("stat", key, err)
	}
	return a.Size, nil
}

func (s *blobStore) list(ctx context.Context, dir string) ([]string, error) {
	prefix := dir + "/"
	if dir == "" {
		prefix = ""
	}
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	var names []string
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return names, nil
		}
		if err != nil {
			return nil, s.wrap("list", dir, err)
		}
		names = append(names, strings.TrimSuffix(strings.TrimPrefix(obj.Key, prefix), "/"))
	}
}

func (s *blobStore) remove(ctx context.Context, key string) error {
	if err := s.bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return s.wrap("delete", key, err)
	}
	return nil
}

func (s *blobStore) removeDir(ctx context.Context, dir string) error {
	// List everything first: deleting while paging through a listing is
	// not something every store handles well.
	it := s.bucket.List(&blob.ListOptions{Prefix: dir + "/"})
	var keys []string
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s.wrap("list", dir, err)
		}
		keys = append(keys, obj.Key)
	}
	for _, key := range keys {
		if err := s.remove(ctx, key); err != nil {
			return err
		}
	}
	return nil
}
