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

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/gcp"
	"google.golang.org/api/option"
)

// The tests here run the storage against a real GCS JSON API server:
// fake-gcs-server's fakestorage with its in-memory backend, served over HTTP
// on a loopback socket, so that every operation goes through
// gocloud.dev/blob/gcsblob, cloud.google.com/go/storage, and an HTTP round
// trip. Nothing reaches the network beyond 127.0.0.1: no credentials are
// looked up and no metadata server is asked.
//
// The storage package does not link gcsblob (the weir command does, in
// cmd/weir/drivers.go); this file links it into the test binary only, which
// registers gs:// with blob.DefaultURLMux.

// The shared backend tests (forEachBackend, backendKinds) run on GCS too.
func init() { backendKinds = append(backendKinds, gcsBackend) }

const gcsBucket = "weir-test"

// fakeGCS starts a GCS server holding the given (empty) buckets, stopped
// when the test ends, and returns its URL (http://127.0.0.1:port).
func fakeGCS(t testing.TB, buckets ...string) string {
	t.Helper()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		Scheme: "http",
		Host:   "127.0.0.1",
		// cloud.google.com/go/storage downloads objects through the XML
		// API (GET /bucket/object) on the endpoint's host; the server
		// serves that only on its public host.
		PublicHost: "127.0.0.1",
	})
	if err != nil {
		t.Fatalf("start fake GCS server: %v", err)
	}
	// Stop closes the server's httptest.Server, which also closes the idle
	// keep-alive connections of http.DefaultTransport, the transport of
	// every client here, whose goroutines goleak would otherwise report.
	t.Cleanup(srv.Stop)
	for _, b := range buckets {
		srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: b})
	}
	return srv.URL()
}

// openGCSBucket opens a bucket of the server at endpoint configured
// explicitly (an unauthenticated client, the server's JSON API endpoint),
// independent of the environment and of any Google credentials.
func openGCSBucket(ctx context.Context, endpoint, bucket string) (*blob.Bucket, error) {
	return gcsblob.OpenBucket(ctx, gcp.NewAnonymousHTTPClient(gcp.DefaultTransport()), bucket, &gcsblob.Options{
		ClientOptions: []option.ClientOption{
			option.WithEndpoint(endpoint + "/storage/v1/"),
			option.WithoutAuthentication(),
		},
	})
}

// directGCSBucket opens a bucket of the server at endpoint for tests to
// reach the objects behind the Storage's back, closed when the test ends.
func directGCSBucket(t testing.TB, endpoint, bucket string) *blob.Bucket {
	t.Helper()
	b, err := openGCSBucket(context.Background(), endpoint, bucket)
	if err != nil {
		t.Fatalf("open bucket %s: %v", bucket, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// gcsOpener opens gs:// URLs on the fake server, without going through
// gcsblob's default opener and its credential lookup.
type gcsOpener struct{ endpoint string }

func (o gcsOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	return openGCSBucket(ctx, o.endpoint, u.Host)
}

// gcsBackend is the GCS backend of the shared tests, configured explicitly
// through Options.URLMux (no environment). A second Storage on its root
// sees the first's snapshots, as on a real bucket.
func gcsBackend(t testing.TB) *backend {
	endpoint := fakeGCS(t, gcsBucket)
	mux := new(blob.URLMux)
	mux.RegisterBucket(gcsblob.Scheme, gcsOpener{endpoint})
	return &backend{
		name:       "gcs",
		url:        "gs://" + gcsBucket + "/weir/checkpoints",
		scheme:     "gs://" + gcsBucket,
		opts:       storage.Options{URLMux: mux},
		bucket:     directGCSBucket(t, endpoint, gcsBucket),
		reopenable: true,
	}
}

// gcsFixture is a fake GCS server addressed the way a user configures the
// engine: plain gs://bucket/prefix URLs opened through the default URL mux,
// with STORAGE_EMULATOR_HOST naming the server. gcsblob then uses an
// unauthenticated client of that host and skips Application Default
// Credentials altogether.
type gcsFixture struct {
	buckets map[string]*blob.Bucket // direct access, by name
}

func newGCSFixture(t *testing.T, buckets ...string) *gcsFixture {
	endpoint := fakeGCS(t, buckets...)
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(endpoint, "http://"))
	t.Setenv("STORAGE_EMULATOR_HOST_GRPC", "")
	f := &gcsFixture{buckets: map[string]*blob.Bucket{}}
	for _, b := range buckets {
		f.buckets[b] = directGCSBucket(t, endpoint, b)
	}
	return f
}

// url returns the gs:// URL of a key prefix in a bucket.
func (*gcsFixture) url(bucket, prefix string) string {
	return "gs://" + bucket + "/" + prefix
}

// object returns the bucket and key of a location (a gs:// URL) and a file
// p in it.
func (f *gcsFixture) object(t *testing.T, loc, p string) (*blob.Bucket, string) {
	t.Helper()
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	if u.Scheme != "gs" || u.RawQuery != "" {
		t.Fatalf("location %q is not a gs:// URL without query", loc)
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

func (f *gcsFixture) read(t *testing.T, loc, p string) []byte {
	t.Helper()
	b, key := f.object(t, loc, p)
	data, err := b.ReadAll(context.Background(), key)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return data
}

func (f *gcsFixture) write(t *testing.T, loc, p string, data []byte) {
	t.Helper()
	b, key := f.object(t, loc, p)
	if err := b.WriteAll(context.Background(), key, data, nil); err != nil {
		t.Fatalf("write %s: %v", key, err)
	}
}

func (f *gcsFixture) remove(t *testing.T, loc, p string) {
	t.Helper()
	b, key := f.object(t, loc, p)
	if err := b.Delete(context.Background(), key); err != nil {
		t.Fatalf("delete %s: %v", key, err)
	}
}

func (f *gcsFixture) exists(t *testing.T, loc, p string) bool {
	t.Helper()
	b, key := f.object(t, loc, p)
	ok, err := b.Exists(context.Background(), key)
	if err != nil {
		t.Fatalf("exists %s: %v", key, err)
	}
	return ok
}

// keys lists the keys of the objects under the location dir.
func (f *gcsFixture) keys(t *testing.T, dir string) []string {
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

// TestGCSURL writes a checkpoint through a gs:// URL, as a user configures
// it, and reads it back through that Storage and through a second one (a
// restarted JobManager).
func TestGCSURL(t *testing.T) {
	f := newGCSFixture(t, gcsBucket)
	root := f.url(gcsBucket, "weir/checkpoints")
	s := open(t, root, storage.Options{})
	if s.Root() != root {
		t.Fatalf("Root() = %q, want %q", s.Root(), root)
	}
	w, err := s.CreateCheckpointWriter(testJob, 7)
	if err != nil {
		t.Fatal(err)
	}
	wr := writeAll(t, w)
	if want := f.url(gcsBucket, "weir/checkpoints/"+testJob+"/chk-7"); wr.loc != want {
		t.Fatalf("location %q, want %q", wr.loc, want)
	}
	checkReadable(t, s, wr.loc, wr)
	checkReadable(t, s, testJob+"/chk-7", wr)

	// The objects are where the layout says, with the bytes written.
	got := f.keys(t, f.url(gcsBucket, "weir/checkpoints/"+testJob))
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

// TestGCSLatestCompletedSkips: a newer checkpoint without _metadata or with
// damaged metadata or state is skipped in favour of an older complete one.
func TestGCSLatestCompletedSkips(t *testing.T) {
	payload := bytes.Repeat([]byte("state"), 10000) // objects, not inline
	tests := []struct {
		name string
		// damage breaks checkpoint 2 (md, at loc) of the job at job.
		damage func(t *testing.T, f *gcsFixture, md *storage.Metadata, loc, job string)
		reason string
	}{
		{"no metadata", func(t *testing.T, f *gcsFixture, _ *storage.Metadata, loc, _ string) {
			f.remove(t, loc, "_metadata")
		}, "not found"},
		{"flipped metadata", func(t *testing.T, f *gcsFixture, _ *storage.Metadata, loc, _ string) {
			m := f.read(t, loc, "_metadata")
			m[len(m)/2] ^= 0x10
			f.write(t, loc, "_metadata", m)
		}, "checksum mismatch"},
		{"truncated metadata", func(t *testing.T, f *gcsFixture, _ *storage.Metadata, loc, _ string) {
			m := f.read(t, loc, "_metadata")
			f.write(t, loc, "_metadata", m[:len(m)-1])
		}, "checksum mismatch"},
		{"damaged state object", func(t *testing.T, f *gcsFixture, md *storage.Metadata, loc, _ string) {
			p := md.Operators[0].Subtasks[0].ChannelState[0].Path
			d := f.read(t, loc, p)
			d[7] ^= 1
			f.write(t, loc, p, d)
		}, "CRC"},
		{"missing shared object", func(t *testing.T, f *gcsFixture, md *storage.Metadata, _, job string) {
			f.remove(t, job, md.Operators[0].Subtasks[0].Keyed[0].Shared[0].Path)
		}, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newGCSFixture(t, gcsBucket)
			var logs logBuffer
			s := open(t, f.url(gcsBucket, "cp"), storage.Options{Logger: logs.logger()})
			_, loc1 := checkpointOf(t, s, 1, payload)
			md2, loc2 := checkpointOf(t, s, 2, payload)
			tt.damage(t, f, md2, loc2, f.url(gcsBucket, "cp/"+testJob))
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

// TestGCSReadStateVerifies: ReadState checks a state object against the
// size and CRC of its handle.
func TestGCSReadStateVerifies(t *testing.T) {
	ctx := context.Background()
	f := newGCSFixture(t, gcsBucket)
	s := open(t, f.url(gcsBucket, "cp"), storage.Options{})
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

// TestGCSDiscard: Discard removes a checkpoint's objects but not its shared
// ones, which DeleteShared removes.
func TestGCSDiscard(t *testing.T) {
	ctx := context.Background()
	f := newGCSFixture(t, gcsBucket)
	s := open(t, f.url(gcsBucket, "cp"), storage.Options{})
	payload := bytes.Repeat([]byte("d"), 50000)
	_, loc1 := checkpointOf(t, s, 1, payload)
	md2, loc2 := checkpointOf(t, s, 2, payload)
	shared := md2.Operators[0].Subtasks[0].Keyed[0].Shared[0]
	job := f.url(gcsBucket, "cp/"+testJob)
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

// TestGCSSavepoint: a savepoint written to a gs:// target, in the root's
// bucket or in another one, is self-contained and readable by a Storage
// rooted elsewhere.
func TestGCSSavepoint(t *testing.T) {
	ctx := context.Background()
	f := newGCSFixture(t, gcsBucket, "savepoints")
	s := open(t, f.url(gcsBucket, "cp"), storage.Options{})
	for i, target := range []string{f.url(gcsBucket, "sp"), f.url("savepoints", "weir/sp")} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			w, err := s.CreateSavepointWriter(ctx, testJob, 7, target)
			if err != nil {
				t.Fatal(err)
			}
			wr := writeAll(t, w)
			re := `^` + regexp.QuoteMeta(target) + `/savepoint-012345-[0-9a-f]{12}$`
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

// TestGCSMissingBucket: a bucket that does not exist is reported by the
// first write, as an error rather than a retry loop.
func TestGCSMissingBucket(t *testing.T) {
	f := newGCSFixture(t, gcsBucket)
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
