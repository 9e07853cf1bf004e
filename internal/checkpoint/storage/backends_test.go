package storage_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
)

// backend is one kind of store under test, with direct access to its
// objects so that tests can damage them behind the Storage's back.
type backend struct {
	name string
	url  string
	opts storage.Options
	// scheme is the prefix of locations ("" for local paths, "mem://").
	scheme string
	bucket *blob.Bucket // mem only, once opened
	// reopenable says whether a second Storage on url sees the first's
	// snapshots.
	reopenable bool
}

// memOpener opens one memblob bucket and keeps it, so that a test can reach
// the objects its Storage writes. A second Storage on the same mem:// root
// would see an empty bucket, as with memblob's own opener: tests of a
// restarted JobManager use the local backend.
type memOpener struct{ b *backend }

func (o memOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	if o.b.bucket != nil {
		return nil, fmt.Errorf("test backend: mem bucket opened twice")
	}
	o.b.bucket = memblob.OpenBucket(nil)
	return o.b.bucket, nil
}

func localBackend(t testing.TB) *backend {
	return &backend{name: "local", url: t.TempDir(), reopenable: true}
}

func memBackend(t testing.TB) *backend {
	b := &backend{name: "mem", url: "mem:///weir/checkpoints", scheme: "mem://"}
	mux := new(blob.URLMux)
	mux.RegisterBucket("mem", memOpener{b})
	b.opts = storage.Options{URLMux: mux}
	return b
}

// backendKinds are the constructors of every backend, for tests that need
// a fresh one per case.
var backendKinds = []func(testing.TB) *backend{localBackend, memBackend}

// forEachBackend runs f as a subtest on a fresh backend of each kind.
func forEachBackend(t *testing.T, f func(t *testing.T, b *backend)) {
	for _, kind := range backendKinds {
		b := kind(t)
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// key returns the object key (mem) or OS path (local) of a location.
func (b *backend) key(loc string) string {
	p := strings.TrimPrefix(loc, b.scheme)
	if b.bucket != nil {
		return strings.TrimPrefix(p, "/")
	}
	return filepath.FromSlash(p)
}

// fileOf returns the location of a handle's file in the snapshot at loc.
func (b *backend) fileOf(loc, p string) string {
	dir := strings.TrimPrefix(loc, b.scheme)
	if strings.Contains(p, "/") {
		dir = path.Dir(dir)
	}
	return b.scheme + path.Join(dir, p)
}

func (b *backend) read(t testing.TB, loc string) []byte {
	t.Helper()
	var data []byte
	var err error
	if b.bucket != nil {
		data, err = b.bucket.ReadAll(context.Background(), b.key(loc))
	} else {
		data, err = os.ReadFile(b.key(loc))
	}
	if err != nil {
		t.Fatalf("read %s: %v", loc, err)
	}
	return data
}

func (b *backend) write(t testing.TB, loc string, data []byte) {
	t.Helper()
	var err error
	if b.bucket != nil {
		err = b.bucket.WriteAll(context.Background(), b.key(loc), data, nil)
	} else {
		err = os.WriteFile(b.key(loc), data, 0o644)
	}
	if err != nil {
		t.Fatalf("write %s: %v", loc, err)
	}
}

func (b *backend) remove(t testing.TB, loc string) {
	t.Helper()
	var err error
	if b.bucket != nil {
		err = b.bucket.Delete(context.Background(), b.key(loc))
	} else {
		err = os.Remove(b.key(loc))
	}
	if err != nil {
		t.Fatalf("remove %s: %v", loc, err)
	}
}

func (b *backend) exists(t testing.TB, loc string) bool {
	t.Helper()
	if b.bucket != nil {
		ok, err := b.bucket.Exists(context.Background(), b.key(loc))
		if err != nil {
			t.Fatalf("exists %s: %v", loc, err)
		}
		return ok
	}
	_, err := os.Stat(b.key(loc))
	return err == nil
}

// count returns the number of objects (files) under the location dir.
func (b *backend) count(t testing.TB, dir string) int {
	t.Helper()
	n := 0
	if b.bucket != nil {
		it := b.bucket.List(&blob.ListOptions{Prefix: b.key(dir) + "/"})
		for {
			if _, err := it.Next(context.Background()); err != nil {
				return n
			}
			n++
		}
	}
	filepath.WalkDir(b.key(dir), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

func (b *backend) open(t testing.TB, opts storage.Options) *storage.Storage {
	if opts.URLMux == nil {
		opts.URLMux = b.opts.URLMux
	}
	return open(t, b.url, opts)
}
