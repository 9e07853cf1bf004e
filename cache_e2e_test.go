package weir_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/weir-engine/weir"
)

// logBuffer is a slog handler's output that tests can read while jobs log.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func batchEnv(t *testing.T, opts ...weir.Option) (*weir.Env, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	opts = append([]weir.Option{weir.WithMode(weir.Batch), weir.WithParallelism(2),
		weir.WithLogger(slog.New(slog.NewTextHandler(logs, nil)))}, opts...)
	env := weir.NewEnv(opts...)
	t.Cleanup(func() { _ = env.Close() })
	return env, logs
}

func ints(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func sorted(v []int) []int { slices.Sort(v); return v }

// The upstream of a cached stream runs once over several executions that
// use it: the first computes and caches it, the later ones read the cache;
// executions on streams derived from it, on a second cache downstream of
// it, and a keyed reduce of it all agree with the data.
func TestCacheRunsUpstreamOnce(t *testing.T) {
	ctx := context.Background()
	env, logs := batchEnv(t)
	var expensive, second seenCounter
	src := weir.FromSlice(env, ints(1000))
	pre := weir.Cache(weir.Map(src, expensive.see))

	n, err := weir.Count(ctx, pre.DataStream)
	if err != nil || n != 1000 {
		t.Fatalf("Count = %d, %v; want 1000", n, err)
	}
	if !pre.IsCached() || expensive.Load() != 1000 {
		t.Fatalf("after the first execution: cached %v, upstream saw %d records", pre.IsCached(), expensive.Load())
	}
	evens, err := weir.Count(ctx, weir.Filter(pre.DataStream, func(v int) (bool, error) { return v%2 == 0, nil }))
	if err != nil || evens != 500 {
		t.Fatalf("filtered Count = %d, %v; want 500", evens, err)
	}
	post := weir.Cache(weir.Map(pre.DataStream, second.see))
	got, err := weir.Collect(ctx, post.DataStream)
	if err != nil || !slices.Equal(sorted(got), ints(1000)) {
		t.Fatalf("Collect of the second cache: %d elements, %v", len(got), err)
	}
	if _, err := weir.Count(ctx, post.DataStream); err != nil {
		t.Fatal(err)
	}
	sums, err := weir.Collect(ctx, weir.Reduce(weir.KeyBy(post.DataStream, func(v int) int { return v % 3 }),
		func(a, b int) (int, error) { return a + b, nil }))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{166833, 166500, 166167}; !slices.Equal(sorted(sums), sorted(want)) {
		t.Fatalf("keyed sums %v, want %v", sums, want)
	}
	if e, s := expensive.Load(), second.Load(); e != 1000 || s != 1000 {
		t.Fatalf("over five executions the cached maps ran over %d and %d records, want 1000 each\n%s", e, s, logs)
	}
	if !strings.Contains(logs.String(), "execution reads cached results") {
		t.Fatal("no log line says an execution read a cache")
	}
}

// Invalidate and Close delete the cache's files; a stream used after
// Invalidate is computed again (and cached again).
func TestCacheInvalidateAndCloseDeleteFiles(t *testing.T) {
	ctx := context.Background()
	env, _ := batchEnv(t)
	var runs seenCounter
	c := weir.Cache(weir.Map(weir.FromSlice(env, ints(100)), runs.see))
	if _, err := weir.Count(ctx, c.DataStream); err != nil {
		t.Fatal(err)
	}
	files := weir.CacheFiles(c)
	if len(files) != 4 {
		t.Fatalf("cache files %v, want a data and an index file for each of 2 subtasks", files)
	}
	assertExist(t, files, true)
	if err := c.Invalidate(ctx); err != nil {
		t.Fatal(err)
	}
	assertExist(t, files, false)
	if n, err := weir.Count(ctx, c.DataStream); err != nil || n != 100 || runs.Load() != 200 {
		t.Fatalf("after Invalidate: Count %d, %v, upstream saw %d records; want 100, and 200 seen", n, err, runs.Load())
	}
	again := weir.CacheFiles(c)
	assertExist(t, again, true)
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	assertExist(t, again, false)
	if n, err := weir.Count(ctx, c.DataStream); err != nil || n != 100 || runs.Load() != 300 {
		t.Fatalf("after Close: Count %d, %v, upstream saw %d; want 100 computed again", n, err, runs.Load())
	}
}

func assertExist(t *testing.T, files []string, want bool) {
	t.Helper()
	for _, f := range files {
		_, err := os.Stat(f)
		if got := err == nil; got != want {
			t.Fatalf("%s exists: %v, want %v (%v)", f, got, want, err)
		}
	}
}

// Cache in streaming mode is a clear error; TryCache returns it and leaves
// the Env usable.
func TestCacheInStreamingModeFails(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(1))
	s := weir.FromSlice(env, []int{1})
	if _, err := weir.TryCache(s); !errors.Is(err, weir.ErrCacheNeedsBatch) {
		t.Fatalf("TryCache in streaming mode: %v", err)
	}
	if got, err := weir.Collect(context.Background(), s); err != nil || len(got) != 1 {
		t.Fatalf("the Env after TryCache: %v, %v", got, err)
	}
	weir.Cache(s)
	if _, err := weir.Collect(context.Background(), s); !errors.Is(err, weir.ErrCacheNeedsBatch) {
		t.Fatalf("Collect after Cache in streaming mode: %v", err)
	}
}
