package storage_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"path/filepath"
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

// The S3 tests (the shared backend tests, and the TestS3… tests of the
// object-store checks in objectstore_test.go, on newS3Fixture) run the
// storage against a real S3 protocol server: gofakes3 with its in-memory
// backend, served over HTTP on a loopback socket, so that every operation
// goes through gocloud.dev/blob/s3blob, the AWS SDK, and an HTTP round trip. Nothing reaches the network beyond 127.0.0.1.

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

// newS3Fixture starts a fake S3 server holding s3Bucket and the other
// buckets, addressed the way a user configures the engine: s3:// URLs
// carrying the endpoint in their query, opened through the default URL mux,
// where this package links s3blob.
func newS3Fixture(t *testing.T, others ...string) *objectStore {
	s3Env(t)
	buckets := append([]string{s3Bucket}, others...)
	endpoint := fakeS3(t, buckets...)
	query := "endpoint=" + endpoint + "&region=" + s3Region + "&use_path_style=true"
	return newObjectStore("s3", query, buckets, func(b string) *blob.Bucket { return openS3Bucket(t, endpoint, b) })
}
