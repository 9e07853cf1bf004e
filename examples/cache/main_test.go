package main

import (
	"bytes"
	"context"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The example's steps give the same results with and without Cache, and
// with it every step after the first reads a cache.
func TestExampleReadsCaches(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Lines: 300, Work: 1, Parallelism: 2}
	var out bytes.Buffer
	withCache, err := Run(ctx, &out, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.NoCache = true
	without, err := Run(ctx, &out, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(withCache) != 4 || len(without) != 4 {
		t.Fatalf("steps: %d and %d, want 4\n%s", len(withCache), len(without), out.String())
	}
	for i := range withCache {
		if withCache[i].Result != without[i].Result {
			t.Fatalf("step %q: %s with the cache, %s without", withCache[i].Name, withCache[i].Result, without[i].Result)
		}
		if want := i > 0; withCache[i].ReadCache != want || without[i].ReadCache {
			t.Fatalf("step %q read a cache: %v with Cache (want %v), %v without", withCache[i].Name, withCache[i].ReadCache, want, without[i].ReadCache)
		}
	}
	if withCache[1].Result != "2400 tokens" {
		t.Fatalf("count = %s, want 2400 tokens (300 lines of 8 words)", withCache[1].Result)
	}
}
