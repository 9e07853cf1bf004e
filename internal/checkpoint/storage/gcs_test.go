package storage_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/gcp"
	"google.golang.org/api/option"
)

// The GCS tests (the shared backend tests, and the TestGCS… tests of the
// object-store checks in objectstore_test.go, on newGCSFixture) run the
// storage against a real GCS JSON API server: fake-gcs-server's fakestorage
// with its in-memory backend, served over HTTP on a loopback socket, so that
// every operation goes through gocloud.dev/blob/gcsblob,
// cloud.google.com/go/storage, and an HTTP round trip. Nothing reaches the network beyond 127.0.0.1: no credentials are
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

// newGCSFixture starts a fake GCS server holding gcsBucket and the other
// buckets, addressed the way a user configures the engine: plain
// gs://bucket/prefix URLs opened through the default URL mux, with
// STORAGE_EMULATOR_HOST naming the server. gcsblob then uses an
// unauthenticated client of that host and skips Application Default
// Credentials altogether.
func newGCSFixture(t *testing.T, others ...string) *objectStore {
	buckets := append([]string{gcsBucket}, others...)
	endpoint := fakeGCS(t, buckets...)
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(endpoint, "http://"))
	t.Setenv("STORAGE_EMULATOR_HOST_GRPC", "")
	return newObjectStore(gcsblob.Scheme, "", buckets, func(b string) *blob.Bucket { return directGCSBucket(t, endpoint, b) })
}
