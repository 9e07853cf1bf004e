package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"gocloud.dev/blob"
)

// The tests here run on every object store: each check is written once, and
// each store's test of it (TestS3…, TestGCS…) calls it with the store's
// fixture, a fake server of that store addressed the way a user configures
// the engine (newS3Fixture in s3_test.go, newGCSFixture in gcs_test.go).

// objectStore is a fake object-store server as the tests see it: URLs of
// its scheme, opened by the Storage through the default URL mux, and its
// buckets opened directly, for tests to reach the objects behind the
// Storage's back.
type objectStore struct {
	scheme  string                  // of every location: "s3", "gs"
	query   string                  // URL query of every location, "" for none
	bucket  string                  // the bucket of the tests' roots
	buckets map[string]*blob.Bucket // direct access, by name
}

// objectStoreFixture starts a fake server of a store holding its bucket
// and the given other (empty) buckets, stopped when the test ends.
type objectStoreFixture func(t *testing.T, others ...string) *objectStore

// newObjectStore returns a store of the scheme whose locations carry query,
// with direct access to its buckets through open.
func newObjectStore(scheme, query string, buckets []string, open func(bucket string) *blob.Bucket) *objectStore {
	f := &objectStore{scheme: scheme, query: query, bucket: buckets[0], buckets: map[string]*blob.Bucket{}}
	for _, b := range buckets {
		f.buckets[b] = open(b)
	}
	return f
}

// url returns the URL of a key prefix in a bucket.
func (f *objectStore) url(bucket, prefix string) string {
	u := f.scheme + "://" + bucket + "/" + prefix
	if f.query != "" {
		u += "?" + f.query
	}
	return u
}

// object returns the bucket and key of a location (a URL of the store's
// scheme with its query) and a file p in it.
func (f *objectStore) object(t *testing.T, loc, p string) (*blob.Bucket, string) {
	t.Helper()
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	if u.Scheme != f.scheme || u.RawQuery != f.query {
		t.Fatalf("location %q is not a %s:// URL with query %q", loc, f.scheme, f.query)
	}
	b := f.buckets[u.Host]
	if b == nil {
		t.Fatalf("location %q is in an unknown bucket", loc)
	}
	key := strings.TrimPrefix(u.Path, "/")
	if p != "" {
		key += "/" + p
	}
	return b, key
}

func (f *objectStore) read(t *testing.T, loc, p string) []byte {
	t.Helper()
	b, key := f.object(t, loc, p)
	data, err := b.ReadAll(context.Background(), key)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return data
}

func (f *objectStore) write(t *testing.T, loc, p string, data []byte) {
	t.Helper()
	b, key := f.object(t, loc, p)
	if err := b.WriteAll(context.Background(), key, data, nil); err != nil {
		t.Fatalf("write %s: %v", key, err)
	}
}

func (f *objectStore) remove(t *testing.T, loc, p string) {
	t.Helper()
	b, key := f.object(t, loc, p)
	if err := b.Delete(context.Background(), key); err != nil {
		t.Fatalf("delete %s: %v", key, err)
	}
}

func (f *objectStore) exists(t *testing.T, loc, p string) bool {
	t.Helper()
	b, key := f.object(t, loc, p)
	ok, err := b.Exists(context.Background(), key)
	if err != nil {
		t.Fatalf("exists %s: %v", key, err)
	}
	return ok
}

// keys lists the keys of the objects under the location dir.
func (f *objectStore) keys(t *testing.T, dir string) []string {
	t.Helper()
	b, key := f.object(t, dir, "")
	var keys []string
	it := b.List(&blob.ListOptions{Prefix: key + "/"})
	for {
		obj, err := it.Next(context.Background())
		if err != nil {
			return keys
		}
		keys = append(keys, obj.Key)
	}
}

// The tests of every object store, one line a store and a check, each
// calling the check (below) with the store's fixture. The S3 locations carry
// the endpoint in their query, which savepoint locations keep; the GCS ones
// are plain gs:// URLs, STORAGE_EMULATOR_HOST naming the server.

func TestS3URL(t *testing.T)                   { checkObjectStoreURL(t, newS3Fixture) }
func TestGCSURL(t *testing.T)                  { checkObjectStoreURL(t, newGCSFixture) }
func TestS3LatestCompletedSkips(t *testing.T)  { checkObjectStoreLatestSkips(t, newS3Fixture) }
func TestGCSLatestCompletedSkips(t *testing.T) { checkObjectStoreLatestSkips(t, newGCSFixture) }
func TestS3ReadStateVerifies(t *testing.T)     { checkObjectStoreReadState(t, newS3Fixture) }
func TestGCSReadStateVerifies(t *testing.T)    { checkObjectStoreReadState(t, newGCSFixture) }
func TestS3Discard(t *testing.T)               { checkObjectStoreDiscard(t, newS3Fixture) }
func TestGCSDiscard(t *testing.T)              { checkObjectStoreDiscard(t, newGCSFixture) }
func TestS3Savepoint(t *testing.T)             { checkObjectStoreSavepoint(t, newS3Fixture, "savepoints") }
func TestGCSSavepoint(t *testing.T)            { checkObjectStoreSavepoint(t, newGCSFixture, "savepoints") }
func TestS3MissingBucket(t *testing.T)         { checkObjectStoreMissingBucket(t, newS3Fixture) }
func TestGCSMissingBucket(t *testing.T)        { checkObjectStoreMissingBucket(t, newGCSFixture) }

// checkObjectStoreURL writes a checkpoint through a URL of the store, as a
// user configures it, and reads it back through that Storage and through a
// second one (a restarted JobManager).
func checkObjectStoreURL(t *testing.T, newStore objectStoreFixture) {
	f := newStore(t)
	root := f.url(f.bucket, "weir/checkpoints")
	s := open(t, root, storage.Options{})
	if s.Root() != root {
		t.Fatalf("Root() = %q, want %q", s.Root(), root)
	}
	w, err := s.CreateCheckpointWriter(testJob, 7)
	if err != nil {
		t.Fatal(err)
	}
	wr := writeAll(t, w)
	if want := f.url(f.bucket, "weir/checkpoints/"+testJob+"/chk-7"); wr.loc != want {
		t.Fatalf("location %q, want %q", wr.loc, want)
	}
	checkReadable(t, s, wr.loc, wr)
	checkReadable(t, s, testJob+"/chk-7", wr)

	// The objects are where the layout says, with the bytes written.
	got := f.keys(t, f.url(f.bucket, "weir/checkpoints/"+testJob))
	want := []string{
		"weir/checkpoints/" + testJob + "/chk-7/_metadata",
		"weir/checkpoints/" + testJob + "/chk-7/" + wr.large.Path,
		"weir/checkpoints/" + testJob + "/" + wr.shared.Path,
		"weir/checkpoints/" + testJob + "/" + wr.owned.Path,
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("objects in the bucket:\n got %q\nwant %q", got, want)
	}
	if data := f.read(t, wr.loc, wr.large.Path); !bytes.Equal(data, wr.streams[wr.large.Path]) {
		t.Fatalf("state object holds %d bytes, want %d", len(data), len(wr.streams[wr.large.Path]))
	}

	s2 := open(t, root, storage.Options{})
	md, loc, err := s2.LatestCompleted(context.Background(), testJob)
	if err != nil || loc != wr.loc || md.CheckpointID != 7 {
		t.Fatalf("LatestCompleted on a second Storage = %v, %q, %v", md, loc, err)
	}
	checkReadable(t, s2, loc, wr)
}

// checkObjectStoreLatestSkips: a newer checkpoint without _metadata or with
// damaged metadata or state is skipped in favour of an older complete one,
// and the log says which and why.
func checkObjectStoreLatestSkips(t *testing.T, newStore objectStoreFixture) {
	payload := bytes.Repeat([]byte("state"), 10000) // objects, not inline
	tests := []struct {
		name string
		// damage breaks checkpoint 2 (md, at loc) of the job at job.
		damage func(t *testing.T, f *objectStore, md *storage.Metadata, loc, job string)
		reason string
	}{
		{"no metadata", func(t *testing.T, f *objectStore, _ *storage.Metadata, loc, _ string) {
			f.remove(t, loc, "_metadata")
		}, "not found"},
		{"flipped metadata", func(t *testing.T, f *objectStore, _ *storage.Metadata, loc, _ string) {
			m := f.read(t, loc, "_metadata")
			m[len(m)/2] ^= 0x10
			f.write(t, loc, "_metadata", m)
		}, "checksum mismatch"},
		{"truncated metadata", func(t *testing.T, f *objectStore, _ *storage.Metadata, loc, _ string) {
			m := f.read(t, loc, "_metadata")
			f.write(t, loc, "_metadata", m[:len(m)-1])
		}, "checksum mismatch"},
		{"damaged state object", func(t *testing.T, f *objectStore, md *storage.Metadata, loc, _ string) {
			p := md.Operators[0].Subtasks[0].ChannelState[0].Path
			d := f.read(t, loc, p)
			d[7] ^= 1
			f.write(t, loc, p, d)
		}, "CRC"},
		{"missing shared object", func(t *testing.T, f *objectStore, md *storage.Metadata, _, job string) {
			f.remove(t, job, md.Operators[0].Subtasks[0].Keyed[0].Shared[0].Path)
		}, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newStore(t)
			var logs logBuffer
			s := open(t, f.url(f.bucket, "cp"), storage.Options{Logger: logs.logger()})
			_, loc1 := checkpointOf(t, s, 1, payload)
			md2, loc2 := checkpointOf(t, s, 2, payload)
			tt.damage(t, f, md2, loc2, f.url(f.bucket, "cp/"+testJob))
			md, loc, err := s.LatestCompleted(context.Background(), testJob)
			if err != nil || md.CheckpointID != 1 || loc != loc1 {
				t.Fatalf("LatestCompleted = %v at %q, %v; want checkpoint 1 at %q", md, loc, err, loc1)
			}
			if line := logs.String(); !strings.Contains(line, "skipping incomplete checkpoint") ||
				!strings.Contains(line, "checkpoint=2") || !strings.Contains(line, tt.reason) {
				t.Fatalf("log does not name checkpoint 2 and %q:\n%s", tt.reason, line)
			}
		})
	}
}

// checkObjectStoreReadState: ReadState checks a state object against the
// size and CRC of its handle.
func checkObjectStoreReadState(t *testing.T, newStore objectStoreFixture) {
	ctx := context.Background()
	f := newStore(t)
	s := open(t, f.url(f.bucket, "cp"), storage.Options{})
	w, err := s.CreateCheckpointWriter(testJob, 7)
	if err != nil {
		t.Fatal(err)
	}
	wr := writeAll(t, w)
	data := f.read(t, wr.loc, wr.large.Path)
	data[len(data)/2] ^= 1
	f.write(t, wr.loc, wr.large.Path, data)
	if _, err := readAll(s.ReadState(ctx, wr.loc, wr.large)); !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), "CRC") {
		t.Fatalf("ReadState of a flipped object: %v, want ErrCorrupt mentioning CRC", err)
	}
	f.write(t, wr.loc, wr.large.Path, data[1:])
	if _, err := readAll(s.ReadState(ctx, wr.loc, wr.large)); !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), "its handle records") {
		t.Fatalf("ReadState of a truncated object: %v, want ErrCorrupt", err)
	}
	f.remove(t, wr.loc, wr.large.Path)
	if _, err := readAll(s.ReadState(ctx, wr.loc, wr.large)); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("ReadState of a deleted object: %v, want ErrNotFound", err)
	}
}

// checkObjectStoreDiscard: Discard removes a checkpoint's objects but not
// its shared ones, which DeleteShared removes.
func checkObjectStoreDiscard(t *testing.T, newStore objectStoreFixture) {
	ctx := context.Background()
	f := newStore(t)
	s := open(t, f.url(f.bucket, "cp"), storage.Options{})
	payload := bytes.Repeat([]byte("d"), 50000)
	_, loc1 := checkpointOf(t, s, 1, payload)
	md2, loc2 := checkpointOf(t, s, 2, payload)
	shared := md2.Operators[0].Subtasks[0].Keyed[0].Shared[0]
	job := f.url(f.bucket, "cp/"+testJob)
	if n := len(f.keys(t, loc2)); n != 3 { // _metadata, keyed, channel
		t.Fatalf("checkpoint 2 has %d objects, want 3", n)
	}
	if err := s.Discard(ctx, loc2); err != nil {
		t.Fatalf("Discard: %v", err)
	}
	if left := f.keys(t, loc2); len(left) != 0 {
		t.Fatalf("objects left in the discarded checkpoint: %q", left)
	}
	if !f.exists(t, job, shared.Path) {
		t.Fatalf("Discard deleted shared object %s", shared.Path)
	}
	if md, loc, err := s.LatestCompleted(ctx, testJob); err != nil || loc != loc1 || md.CheckpointID != 1 {
		t.Fatalf("LatestCompleted after Discard = %v, %s, %v", md, loc, err)
	}
	if err := s.Discard(ctx, loc2); err != nil {
		t.Fatalf("second Discard: %v", err)
	}
	if err := s.DeleteShared(ctx, testJob, []storage.SharedFile{shared}); err != nil {
		t.Fatalf("DeleteShared: %v", err)
	}
	if f.exists(t, job, shared.Path) {
		t.Fatalf("DeleteShared left %s", shared.Path)
	}
	if err := s.DeleteShared(ctx, testJob, []storage.SharedFile{shared}); err != nil {
		t.Fatalf("repeated DeleteShared: %v", err)
	}
	if _, err := s.ReadMetadata(ctx, loc1); err != nil {
		t.Fatalf("checkpoint 1: %v", err)
	}
}

// checkObjectStoreSavepoint: a savepoint written to a target of the store,
// in the root's bucket or in the bucket otherBucket, is self-contained and
// readable by a Storage rooted elsewhere. Its location is the target's
// URL, query included, with the savepoint directory appended to the path.
func checkObjectStoreSavepoint(t *testing.T, newStore objectStoreFixture, otherBucket string) {
	ctx := context.Background()
	f := newStore(t, otherBucket)
	s := open(t, f.url(f.bucket, "cp"), storage.Options{})
	for i, target := range []string{f.url(f.bucket, "sp"), f.url(otherBucket, "weir/sp")} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			w, err := s.CreateSavepointWriter(ctx, testJob, 7, target)
			if err != nil {
				t.Fatal(err)
			}
			wr := writeAll(t, w)
			u, _ := url.Parse(target)
			re := `^` + regexp.QuoteMeta(f.scheme+"://"+u.Host+u.Path) + `/savepoint-012345-[0-9a-f]{12}`
			if f.query != "" {
				re += `\?` + regexp.QuoteMeta(f.query)
			}
			re += `$`
			if !regexp.MustCompile(re).MatchString(wr.loc) {
				t.Fatalf("savepoint location %q does not match %s", wr.loc, re)
			}
			if n := len(f.keys(t, wr.loc)); n != 4 { // _metadata, keyed, task-owned, shared
				t.Fatalf("savepoint holds %d objects, want 4", n)
			}
			md, err := s.ReadMetadata(ctx, wr.loc)
			if err != nil || md.Kind != storage.KindSavepoint {
				t.Fatalf("ReadMetadata = %+v, %v", md, err)
			}
			checkReadable(t, s, wr.loc, wr)
			other := open(t, t.TempDir(), storage.Options{})
			checkReadable(t, other, wr.loc, wr)
		})
	}
}

// checkObjectStoreMissingBucket: a bucket that does not exist is reported
// by the first write, as an error rather than a retry loop.
func checkObjectStoreMissingBucket(t *testing.T, newStore objectStoreFixture) {
	f := newStore(t)
	s := open(t, f.url("no-such-bucket", "cp"), storage.Options{InlineThreshold: -1})
	w, err := s.CreateCheckpointWriter(testJob, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteState(context.Background(), "s", bytes.NewReader(make([]byte, 10000))); err == nil ||
		!strings.Contains(err.Error(), "no-such-bucket") {
		t.Fatalf("write to a missing bucket: %v, want an error naming it", err)
	}
}
