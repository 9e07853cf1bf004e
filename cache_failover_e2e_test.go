package weir_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/disktest"
)

// A cache whose files are lost, truncated or damaged gives the same result:
// the consuming execution computes the stream again, caches it anew and
// says so in a warning. Missing and truncated files are found before the
// job starts (the index does not match the data); a damaged byte inside a
// segment fails the segment's CRC32C while the job reads it, and the Env
// runs the execution again.
func TestLostOrCorruptCacheIsRecomputed(t *testing.T) {
	damage := []struct {
		name string
		do   func(data, index string) error
		log  string
	}{
		{"data file missing", func(data, _ string) error { return os.Remove(data) }, "cached result lost or damaged: computing it again"},
		{"index missing", func(_, index string) error { return os.Remove(index) }, "cached result lost or damaged: computing it again"},
		{"data truncated", func(data, _ string) error { return os.Truncate(data, 10) }, "cached result lost or damaged: computing it again"},
		{"byte flipped", flipMiddleByte, "cached result lost or damaged while reading it: running the execution again"},
	}
	for _, d := range damage {
		t.Run(d.name, func(t *testing.T) {
			ctx := context.Background()
			env, logs := batchEnv(t)
			var runs seenCounter
			c := weir.Cache(weir.Map(weir.FromSlice(env, ints(1000)), runs.see))
			if got, err := weir.Collect(ctx, c.DataStream); err != nil || len(got) != 1000 {
				t.Fatalf("first Collect: %d elements, %v", len(got), err)
			}
			files := weir.CacheFiles(c)
			if err := d.do(files[0], files[1]); err != nil {
				t.Fatal(err)
			}
			got, err := weir.Collect(ctx, weir.Map(c.DataStream, func(v int) (int, error) { return v * 2, nil }))
			if err != nil {
				t.Fatalf("Collect over the damaged cache: %v\n%s", err, logs)
			}
			want := make([]int, 1000)
			for i := range want {
				want[i] = 2 * i
			}
			if !slices.Equal(sorted(got), want) {
				t.Fatalf("Collect over the damaged cache: %d elements, want the %d of the first", len(got), len(want))
			}
			if runs.Load() != 2000 {
				t.Fatalf("upstream saw %d records, want 2000: computed once more", runs.Load())
			}
			if !strings.Contains(logs.String(), d.log) {
				t.Fatalf("no warning %q in\n%s", d.log, logs)
			}
			if !c.IsCached() {
				t.Fatal("the cache was not created again")
			}
			if n, err := weir.Count(ctx, c.DataStream); err != nil || n != 1000 || runs.Load() != 2000 {
				t.Fatalf("Count over the new cache: %d, %v, upstream saw %d", n, err, runs.Load())
			}
		})
	}
}

func flipMiddleByte(data, _ string) error {
	b, err := os.ReadFile(data)
	if err != nil {
		return err
	}
	b[len(b)/2] ^= 0x40
	return os.WriteFile(data, b, 0o644)
}

// A cache that cannot be written (here a partition over its size limit, as
// on a full disk) leaves the execution's result whole: it succeeds without
// the cache, with a warning, and leaves no file behind.
func TestCacheWriteFailureKeepsTheResult(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	env, logs := batchEnv(t, weir.WithCachePartitionLimit(100),
		weir.WithStateBackend(weir.StateBackend{LocalDir: dir}))
	var runs seenCounter
	c := weir.Cache(weir.Map(weir.FromSlice(env, ints(50000)), runs.see))
	n, err := weir.Count(ctx, c.DataStream)
	if err != nil || n != 50000 {
		t.Fatalf("Count = %d, %v; want 50000", n, err)
	}
	if c.IsCached() {
		t.Fatal("a cache over its limit was created")
	}
	if !strings.Contains(logs.String(), "cannot write the cached result") {
		t.Fatalf("no warning in\n%s", logs)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "weir-cache-*", "*"))
	if len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
	if n, err := weir.Count(ctx, c.DataStream); err != nil || n != 50000 || runs.Load() != 100000 {
		t.Fatalf("second Count = %d, %v, upstream saw %d; want it computed again", n, err, runs.Load())
	}
}

// The same on a real full disk: the cache's directory is a tmpfs far
// smaller than the cached stream, so its writes fail with ENOSPC; the
// execution succeeds without the cache, warns, and leaves the disk empty
// for the next one.
func TestCacheOnFullDiskKeepsTheResult(t *testing.T) {
	disk, _ := disktest.Small(t, 64<<10)
	ctx := context.Background()
	env, logs := batchEnv(t, weir.WithStateBackend(weir.StateBackend{LocalDir: disk}))
	var runs seenCounter
	c := weir.Cache(weir.Map(weir.FromSlice(env, ints(200000)), runs.see))
	n, err := weir.Count(ctx, c.DataStream)
	if err != nil || n != 200000 {
		t.Fatalf("Count = %d, %v; want 200000 (the result without the cache)", n, err)
	}
	if c.IsCached() {
		t.Fatal("a cache was created on a full disk")
	}
	if !strings.Contains(logs.String(), "cannot write the cached result") || !strings.Contains(logs.String(), "no space left on device") {
		t.Fatalf("no warning naming the full disk in\n%s", logs)
	}
	left, _ := filepath.Glob(filepath.Join(disk, "weir-cache-*", "*"))
	if len(left) != 0 {
		t.Fatalf("files left behind on the full disk: %v", left)
	}
	if n, err := weir.Count(ctx, c.DataStream); err != nil || n != 200000 || runs.Load() != 400000 {
		t.Fatalf("second Count = %d, %v, upstream saw %d; want it computed again", n, err, runs.Load())
	}
}
