package sequence_test

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/jobs/sequence"
)

// fakeS3 starts an in-process S3 server (gofakes3, in memory) on a loopback
// socket with the given buckets, isolates the AWS SDK from the machine
// (dummy credentials, no configuration files, no EC2 metadata), and returns
// the query that points an s3:// URL at it. The storage links s3blob, so
// the engine opens such URLs as it would a real bucket.
func fakeS3(t *testing.T, buckets ...string) (query string, mem *s3mem.Backend) {
	t.Helper()
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           "weir",
		"AWS_SECRET_ACCESS_KEY":       "weir-secret",
		"AWS_SESSION_TOKEN":           "",
		"AWS_REGION":                  "us-east-1",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             none,
		"AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_ENDPOINT_URL":            "",
		"AWS_ENDPOINT_URL_S3":         "",
	} {
		t.Setenv(k, v)
	}
	mem = s3mem.New()
	for _, b := range buckets {
		if err := mem.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(gofakes3.New(mem).Server())
	t.Cleanup(srv.Close)
	return "endpoint=" + srv.URL + "&region=us-east-1&use_path_style=true", mem
}

// countObjects returns the number of objects under prefix in a bucket of
// the fake server.
func countObjects(t *testing.T, mem *s3mem.Backend, bucket, prefix string) int {
	t.Helper()
	res, err := mem.ListBucket(bucket, &gofakes3.Prefix{Prefix: prefix, HasPrefix: true}, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Contents)
}

// The sequence job checkpoints into S3 and restarts from there after a
// failure, with either state backend, and its output is exactly-once.
func TestS3CheckpointsExactlyOnce(t *testing.T) {
	for _, tt := range []struct {
		name    string
		backend weir.StateBackend
	}{
		{"heap", weir.StateBackend{}},
		{"pebble-incremental", weir.StateBackend{Kind: weir.Pebble, Incremental: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			query, mem := fakeS3(t, "checkpoints")
			root := "s3://checkpoints/weir/" + tt.name
			cfg := sequence.Config{Keys: 10, RecordsPerKey: 300, Rate: 10000, ShortRecords: 20, FailAfter: 1000}
			out := t.TempDir()
			if tt.backend.Kind == weir.Pebble {
				tt.backend.LocalDir = t.TempDir()
			}
			env := fileJob(t, cfg, out, weir.WithParallelism(2), weir.WithStateBackend(tt.backend),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 50 * time.Millisecond, Dir: root + "?" + query}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(3, 10*time.Millisecond)))
			ctx := testContext(t)
			c, err := env.ExecuteAsync(ctx, "sequence")
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if res.Restarts != 1 {
				t.Errorf("restarts = %d, want 1 (FailAfter fails once)", res.Restarts)
			}
			if res.Checkpoints.Completed < 2 {
				t.Errorf("%d checkpoints completed, want a few", res.Checkpoints.Completed)
			}
			if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
				t.Fatalf("output is not exactly-once: %v", err)
			}
			// The checkpoints are in the bucket: the latest is an s3://
			// location that reads back.
			latest := res.Checkpoints.Latest
			if !strings.HasPrefix(latest, root+"/"+c.JobID()+"/chk-") || !strings.HasSuffix(latest, "?"+query) {
				t.Fatalf("latest checkpoint at %q, want under %s", latest, root)
			}
			st, err := storage.Open(ctx, root+"?"+query, storage.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			md, err := st.ReadMetadata(ctx, latest)
			if err != nil {
				t.Fatalf("latest checkpoint: %v", err)
			}
			n := countObjects(t, mem, "checkpoints", "weir/"+tt.name+"/"+c.JobID()+"/")
			if n == 0 {
				t.Fatalf("no objects in the bucket")
			}
			t.Logf("%d checkpoints (%d failed), latest %d with %d shared files, %d objects in the bucket, %v",
				res.Checkpoints.Completed, res.Checkpoints.Failed, md.CheckpointID, len(md.SharedFiles()), n, res.Duration)
		})
	}
}

// A job stopped with a savepoint into S3 resumes from it, at another
// parallelism and state backend, and the output of both runs together is
// exactly-once.
func TestS3SavepointResume(t *testing.T) {
	query, mem := fakeS3(t, "checkpoints", "savepoints")
	cfg := sequence.Config{Keys: 10, RecordsPerKey: 300, Rate: 10000, ShortRecords: 15}
	out := t.TempDir()
	run := func(p int, backend weir.StateBackend, from string, stopAfter time.Duration) string {
		opts := []weir.Option{weir.WithParallelism(p), weir.WithStateBackend(backend),
			weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour, Dir: "s3://checkpoints/weir?" + query})}
		if from != "" {
			opts = append(opts, weir.WithRestoreFrom(from, false))
		}
		env := fileJob(t, cfg, out, opts...)
		ctx := testContext(t)
		c, err := env.ExecuteAsync(ctx, "sequence")
		if err != nil {
			t.Fatal(err)
		}
		var loc string
		if stopAfter > 0 {
			time.Sleep(stopAfter)
			loc, err = c.StopWithSavepoint(ctx, "s3://savepoints/weir/sp?"+query, false)
			if err != nil {
				t.Fatalf("p=%d: stop with savepoint: %v", p, err)
			}
		}
		if _, err := c.Wait(); err != nil {
			t.Fatalf("p=%d: %v", p, err)
		}
		return loc
	}
	sp := run(1, weir.StateBackend{}, "", 150*time.Millisecond)
	if !strings.HasPrefix(sp, "s3://savepoints/weir/sp/savepoint-") {
		t.Fatalf("savepoint at %q", sp)
	}
	if countObjects(t, mem, "savepoints", "weir/sp/") == 0 {
		t.Fatalf("no savepoint objects in the bucket")
	}
	run(2, weir.StateBackend{Kind: weir.Pebble, Incremental: true, LocalDir: t.TempDir()}, sp, 0)
	if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
		t.Fatalf("after resuming from %s: %v", sp, err)
	}
}
