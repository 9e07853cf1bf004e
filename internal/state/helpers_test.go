package state

import (
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// backendKinds are the backends the model tests run against:
// "pebble-small-cache" is Pebble with a cache of a few entries, so that
// entries are evicted and written back all the time.
var backendKinds = []string{"heap", "pebble", "pebble-small-cache"}

// smallCacheBytes is the cache bound of "pebble-small-cache": a few
// entries of the model tests.
const smallCacheBytes = 4 * cacheEntryOverhead

// newTestBackend returns a heap or Pebble backend of one of backendKinds;
// Close removes a Pebble backend's directory.
func newTestBackend[K comparable](t interface{ Fatal(...any) }, kind string, start, end int) *KeyedBackend[K] {
	if kind == "heap" {
		return NewKeyedBackend[K](start, end)
	}
	dir, err := os.MkdirTemp("", "weir-state-test-")
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenPebble[K](start, end, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if kind == "pebble-small-cache" {
		b.kv.cache.limit = smallCacheBytes
	}
	return b
}

// keyGroupOf is the test's key-group assignment: any deterministic function
// of the key works, the backend only needs the caller to be consistent.
func keyGroupOf(key string, maxParallelism int) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(maxParallelism))
}

// mustNoErr fails the test if the backend recorded an error.
func mustNoErr[K comparable](t *testing.T, b *KeyedBackend[K]) {
	t.Helper()
	if err := b.Err(); err != nil {
		t.Fatalf("backend recorded error: %v", err)
	}
}

// sortedKeys collects the keys with state name in keyGroup, sorted.
func sortedKeys(b *KeyedBackend[string], name string, keyGroup int) []string {
	return slices.Sorted(b.Keys(name, keyGroup))
}

// linkDir makes dst a copy of the Pebble checkpoint in src by hard links,
// as a download would make a private copy: RestorePebble moves its base
// source.
func linkDir(t testing.TB, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if err := os.Link(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}
