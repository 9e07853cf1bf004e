package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// The tests here run the storage against a real S3 protocol server: gofakes3
// with its in-memory backend, served over HTTP on a loopback socket, so that
// every operation goes through gocloud.dev/blob/s3blob, the AWS SDK, and an
// HTTP round trip. Nothing reaches the network beyond 127.0.0.1.

// The shared backend tests (forEachBackend, backendKinds) run on S3 too.
func init() { backendKinds = append(backendKinds, s3Backend) }

const (
	s3Bucket = "weir-test"
	s3Region = "us-east-1"
)

// fakeS3 starts an S3 server holding the given (empty) buckets, stopped when
// the test ends, and returns its endpoint URL (http://127.0.0.1:port).
func fakeS3(t testing.TB, buckets ...string) string {
	t.Helper()
	mem := s3mem.New()
	for _, b := range buckets {
		if err := mem.CreateBucket(b); err != nil {
			t.Fatalf("create bucket %s: %v", b, err)
		}
	}
	srv := httptest.NewServer(gofakes3.New(mem).Server())
	// Closing the server also closes the clients' idle keep-alive
	// connections, whose goroutines goleak would otherwise report.
	t.Cleanup(srv.Close)
	return srv.URL
}

// s3Client returns an S3 client of the server at endpoint configured
// explicitly (static credentials, path-style addressing), independent of the
// environment and of any AWS configuration files.
func s3Client(endpoint string) *s3.Client {
	return s3.New(s3.Options{
		Region:       s3Region,
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("weir", "weir-secret", ""),
	})
}

// openS3Bucket opens a bucket of the server at endpoint directly, for tests
// to reach the objects behind the Storage's back.
func openS3Bucket(t testing.TB, endpoint, bucket string) *blob.Bucket {
	t.Helper()
	b, err := s3blob.OpenBucket(context.Background(), s3Client(endpoint), bucket, nil)
	if err != nil {
		t.Fatalf("open bucket %s: %v", bucket, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// s3Opener opens s3:// URLs on the fake server whatever their query, so that
// the backend's locations are plain s3://bucket/key URLs, as the helpers of
// the shared tests expect.
type s3Opener struct{ endpoint string }

func (o s3Opener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	return s3blob.OpenBucket(ctx, s3Client(o.endpoint), u.Host, nil)
}

// s3Backend is the S3 backend of the shared tests. A second Storage on its
// root sees the first's snapshots, as on a real bucket.
func s3Backend(t testing.TB) *backend {
	endpoint := fakeS3(t, s3Bucket)
	mux := new(blob.URLMux)
	mux.RegisterBucket("s3", s3Opener{endpoint})
	return &backend{
		name:       "s3",
		url:        "s3://" + s3Bucket + "/weir/checkpoints",
		scheme:     "s3://" + s3Bucket,
		opts:       storage.Options{URLMux: mux},
		bucket:     openS3Bucket(t, endpoint, s3Bucket),
		reopenable: true,
	}
}

// s3Env isolates the AWS SDK of the default URL mux from the machine: dummy
// static credentials, no shared configuration files, no EC2 instance
// metadata, no endpoint overrides.
func s3Env(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           "weir",
		"AWS_SECRET_ACCESS_KEY":       "weir-secret",
		"AWS_SESSION_TOKEN":           "",
		"AWS_REGION":                  s3Region,
		"AWS_DEFAULT_REGION":          s3Region,
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             none,
		"AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_ENDPOINT_URL":            "",
		"AWS_ENDPOINT_URL_S3":         "",
	} {
		t.Setenv(k, v)
	}
}

// s3Fixture is a fake S3 server addressed the way a user configures the
// engine: s3:// URLs carrying the endpoint in their query, opened through
// the default URL mux, where this package links s3blob.
type s3Fixture struct {
	endpoint string
	query    string
	buckets  map[string]*blob.Bucket // direct access, by name
}

func newS3Fixture(t *testing.T, buckets ...string) *s3Fixture {
	s3Env(t)
	f := &s3Fixture{endpoint: fakeS3(t, buckets...), buckets: map[string]*blob.Bucket{}}
	f.query = "endpoint=" + f.endpoint + "&region=" + s3Region + "&use_path_style=true"
	for _, b := range buckets {
		f.buckets[b] = openS3Bucket(t, f.endpoint, b)
	}
	return f
}

// url returns the s3:// URL of a key prefix in a bucket.
func (f *s3Fixture) url(bucket, prefix string) string {
	return "s3://" + bucket + "/" + prefix + "?" + f.query
}

// object returns the bucket and key of a location (an s3:// URL with the
// fixture's query) and a file p in it.
func (f *s3Fixture) object(t *testing.T, loc, p string) (*blob.Bucket, string) {
	t.Helper()
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	if u.Scheme != "s3" || u.RawQuery != f.query {
		t.Fatalf("location %q is not an s3:// URL with query %q", loc, f.query)
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

func (f *s3Fixture) read(t *testing.T, loc, p string) []byte {
	t.Helper()
	b, key := f.object(t, loc, p)
	data, err := b.ReadAll(context.Background(), key)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return data
}

func (f *s3Fixture) write(t *testing.T, loc, p string, data []byte) {
	t.Helper()
	b, key := f.object(t, loc, p)
	if err := b.WriteAll(context.Background(), key, data, nil); err != nil {
		t.Fatalf("write %s: %v", key, err)
	}
}

func (f *s3Fixture) remove(t *testing.T, loc, p string) {
	t.Helper()
	b, key := f.object(t, loc, p)
	if err := b.Delete(context.Background(), key); err != nil {
		t.Fatalf("delete %s: %v", key, err)
	}
}

// keys lists the keys of the objects under the location dir.
func (f *s3Fixture) keys(t *testing.T, dir string) []string {
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

// TestS3URL writes a checkpoint through an s3:// URL naming the endpoint in
// its query, as a user configures it, and reads it back through that
// Storage and through a second one (a restarted JobManager).
func TestS3URL(t *testing.T) {
	f := newS3Fixture(t, s3Bucket)
	root := f.url(s3Bucket, "weir/checkpoints")
	s := open(t, root, storage.Options{})
	if s.Root() != root {
		t.Fatalf("Root() = %q, want %q", s.Root(), root)
	}
	w, err := s.CreateCheckpointWriter(testJob, 7)
	if err != nil {
		t.Fatal(err)
	}
	wr := writeAll(t, w)
	if want := f.url(s3Bucket, "weir/checkpoints/"+testJob+"/chk-7"); wr.loc != want {
		t.Fatalf("location %q, want %q", wr.loc, want)
	}
	checkReadable(t, s, wr.loc, wr)
	checkReadable(t, s, testJob+"/chk-7", wr)

	// The objects are where the layout says, with the bytes written.
	got := f.keys(t, f.url(s3Bucket, "weir/checkpoints/"+testJob))
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

// TestS3LatestCompletedSkips: a newer checkpoint without _metadata or with
// damaged metadata or state is skipped in favour of an older complete one.
func TestS3LatestCompletedSkips(t *testing.T) {
	payload := bytes.Repeat([]byte("state"), 10000) // objects, not inline
	tests := []struct {
		name string
		// damage breaks checkpoint 2 (md, at loc) of the job at job.
		damage func(t *testing.T, f *s3Fixture, md *storage.Metadata, loc, job string)
		reason string
	}{
		{"no metadata", func(t *testing.T, f *s3Fixture, _ *storage.Metadata, loc, _ string) {
			f.remove(t, loc, "_metadata")
		}, "not found"},
		{"flipped metadata", func(t *testing.T, f *s3Fixture, _ *storage.Metadata, loc, _ string) {
			m := f.read(t, loc, "_metadata")
			m[len(m)/2] ^= 0x10
			f.write(t, loc, "_metadata", m)
		}, "checksum mismatch"},
		{"truncated metadata", func(t *testing.T, f *s3Fixture, _ *storage.Metadata, loc, _ string) {
			m := f.read(t, loc, "_metadata")
			f.write(t, loc, "_metadata", m[:len(m)-1])
		}, "checksum mismatch"},
		{"damaged state object", func(t *testing.T, f *s3Fixture, md *storage.Metadata, loc, _ string) {
			p := md.Operators[0].Subtasks[0].ChannelState[0].Path
			d := f.read(t, loc, p)
			d[7] ^= 1
			f.write(t, loc, p, d)
		}, "CRC"},
		{"missing shared object", func(t *testing.T, f *s3Fixture, md *storage.Metadata, _, job string) {
			f.remove(t, job, md.Operators[0].Subtasks[0].Keyed[0].Shared[0].Path)
		}, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newS3Fixture(t, s3Bucket)
			var logs logBuffer
			s := open(t, f.url(s3Bucket, "cp"), storage.Options{Logger: logs.logger()})
			_, loc1 := checkpointOf(t, s, 1, payload)
			md2, loc2 := checkpointOf(t, s, 2, payload)
			tt.damage(t, f, md2, loc2, f.url(s3Bucket, "cp/"+testJob))
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

// TestS3ReadStateVerifies: ReadState checks a state object against the
// size and CRC of its handle.
func TestS3ReadStateVerifies(t *testing.T) {
	ctx := context.Background()
	f := newS3Fixture(t, s3Bucket)
	s := open(t, f.url(s3Bucket, "cp"), storage.Options{})
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

// TestS3Discard: Discard removes a checkpoint's objects but not its shared
// ones, which DeleteShared removes.
func TestS3Discard(t *testing.T) {
	ctx := context.Background()
	f := newS3Fixture(t, s3Bucket)
	s := open(t, f.url(s3Bucket, "cp"), storage.Options{})
	payload := bytes.Repeat([]byte("d"), 50000)
	_, loc1 := checkpointOf(t, s, 1, payload)
	md2, loc2 := checkpointOf(t, s, 2, payload)
	shared := md2.Operators[0].Subtasks[0].Keyed[0].Shared[0]
	job := f.url(s3Bucket, "cp/"+testJob)
	exists := func(p string) bool {
		b, key := f.object(t, job, p)
		ok, err := b.Exists(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if n := len(f.keys(t, loc2)); n != 3 { // _metadata, keyed, channel
		t.Fatalf("checkpoint 2 has %d objects, want 3", n)
	}
	if err := s.Discard(ctx, loc2); err != nil {
		t.Fatalf("Discard: %v", err)
	}
	if left := f.keys(t, loc2); len(left) != 0 {
		t.Fatalf("objects left in the discarded checkpoint: %q", left)
	}
	if !exists(shared.Path) {
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
	if exists(shared.Path) {
		t.Fatalf("DeleteShared left %s", shared.Path)
	}
	if err := s.DeleteShared(ctx, testJob, []storage.SharedFile{shared}); err != nil {
		t.Fatalf("repeated DeleteShared: %v", err)
	}
	if _, err := s.ReadMetadata(ctx, loc1); err != nil {
		t.Fatalf("checkpoint 1: %v", err)
	}
}

// TestS3Savepoint: a savepoint written to an s3:// target, in the root's
// bucket or in another one, is self-contained and readable by a Storage
// rooted elsewhere.
func TestS3Savepoint(t *testing.T) {
	ctx := context.Background()
	f := newS3Fixture(t, s3Bucket, "savepoints")
	s := open(t, f.url(s3Bucket, "cp"), storage.Options{})
	for i, target := range []string{f.url(s3Bucket, "sp"), f.url("savepoints", "weir/sp")} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			w, err := s.CreateSavepointWriter(ctx, testJob, 7, target)
			if err != nil {
				t.Fatal(err)
			}
			wr := writeAll(t, w)
			u, _ := url.Parse(target)
			re := `^s3://` + u.Host + regexp.QuoteMeta(u.Path) + `/savepoint-012345-[0-9a-f]{12}\?` + regexp.QuoteMeta(f.query) + `$`
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

// TestS3MissingBucket: a bucket that does not exist is reported by the
// first write, as an error rather than a retry loop.
func TestS3MissingBucket(t *testing.T) {
	f := newS3Fixture(t, s3Bucket)
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
