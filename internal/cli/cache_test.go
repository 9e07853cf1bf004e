package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/cache/cachetest"
)

// weir cache list shows the datasets of a cache directory; drop deletes
// one (gone from the directory), --all the rest; bad use is a usage error.
func TestCacheListDrop(t *testing.T) {
	dir := t.TempDir()
	reg := cache.NewRegistry(cache.Options{Dir: dir, Persistent: true})
	const a, b = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	cachetest.Write(t, reg, a, "x", "y", "z")
	cachetest.Write(t, reg, b, "x")
	ctx := context.Background()
	r := run(ctx, newFake(), "cache", "list", "--cache-dir", dir)
	if r.code != ExitOK || !strings.Contains(r.stdout, a) || !strings.Contains(r.stdout, b) {
		t.Fatalf("cache list: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := run(ctx, newFake(), "cache", "drop", "--cache-dir", dir, a); r.code != ExitOK {
		t.Fatalf("cache drop: %d %q", r.code, r.stderr)
	}
	if _, ok := reg.Lookup(a); ok {
		t.Fatal("dropped dataset still found")
	}
	checkFailure(t, run(ctx, newFake(), "cache", "drop", "--cache-dir", dir, a), ExitFailed, "no dataset")
	checkFailure(t, run(ctx, newFake(), "cache", "drop", "--cache-dir", dir), ExitUsage, "--all")
	checkFailure(t, run(ctx, newFake(), "cache", "list", "--cache-dir", ""), ExitUsage, "no cache directory")
	if r := run(ctx, newFake(), "cache", "drop", "--all", "--cache-dir", dir); r.code != ExitOK {
		t.Fatalf("cache drop --all: %d %q", r.code, r.stderr)
	}
	if ds, err := cache.ListDir(dir); len(ds) != 0 || err != nil {
		t.Fatalf("after drop --all: %d datasets, %v", len(ds), err)
	}
}
