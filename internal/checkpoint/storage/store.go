package storage

import (
	"context"
	"io"
)

// objectStore is what Storage needs from a local file system or a bucket.
// Keys are slash-separated and have no leading slash; a "directory" is a key
// prefix. Implementations map a missing key to an error wrapping
// ErrNotFound.
type objectStore interface {
	// put stores r under key atomically: readers see the whole object or
	// none, and on return without error it is durable.
	put(ctx context.Context, key string, r io.Reader) error
	// get opens key for reading.
	get(ctx context.Context, key string) (io.ReadCloser, error)
	// getRange opens n bytes of key from offset off; a shorter object
	// yields fewer bytes.
	getRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error)
	// size returns the length of the object at key.
	size(ctx context.Context, key string) (int64, error)
	// list returns the names of the direct children of dir, files and
	// directories alike; a missing dir has none.
	list(ctx context.Context, dir string) ([]string, error)
	// remove deletes key; a missing key is not an error.
	remove(ctx context.Context, key string) error
	// removeDir deletes every object under dir, and dir itself where
	// directories exist; a missing dir is not an error.
	removeDir(ctx context.Context, dir string) error
	// locate returns the location users see for key: a path or a URL
	// that resolves back to this store and key.
	locate(key string) string
	// close releases the store.
	close() error
}

// ctxReader fails reads once ctx is done, so that copying a long stream
// into a local file observes cancellation.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
