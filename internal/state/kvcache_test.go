package state

import (
	"fmt"
	"strings"
	"testing"
)

// State many times larger than the cache's bound: the cache never holds
// more than its bound, and every key still reads back what was written
// last, before and after a capture, whose copy holds it too.
func TestPebbleCacheIsBounded(t *testing.T) {
	const (
		limit  = 64 << 10
		keys   = 4000
		rounds = 3
		groups = 8
	)
	b := newTestBackend[string](t, "pebble", 0, groups-1)
	defer b.Close()
	b.kv.cache.limit = limit
	v, _ := Value[string, string](b, "v")
	value := func(i, round int) string { return fmt.Sprintf("%d-%d-%s", i, round, strings.Repeat("x", 100)) }
	for round := range rounds {
		for i := range keys {
			k := fmt.Sprint("k", i)
			b.SetCurrentKey(k, keyGroupOf(k, groups))
			if round > 0 {
				if got, ok := v.Value(); !ok || got != value(i, round-1) {
					t.Fatalf("round %d: %s = %.12q, %v before the update", round, k, got, ok)
				}
			}
			v.Update(value(i, round))
			if b.kv.cache.bytes > limit {
				t.Fatalf("cache holds %d bytes, bound %d", b.kv.cache.bytes, limit)
			}
		}
	}
	mustNoErr(t, b)
	if n := len(b.kv.cache.entries); n >= keys/4 {
		t.Fatalf("cache holds %d of %d keys; want far fewer under a %d-byte bound", n, keys, limit)
	}
	c, err := b.Capture(t.TempDir() + "/capture")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	restored := NewKeyedBackend[string](0, groups-1)
	for kg := range groups {
		sec, err := c.Section(nil, kg)
		if err != nil {
			t.Fatal(err)
		}
		if err := restored.RestoreKeyGroup(kg, sec); err != nil {
			t.Fatal(err)
		}
	}
	rv, _ := Value[string, string](restored, "v")
	for i := range keys {
		k := fmt.Sprint("k", i)
		restored.SetCurrentKey(k, keyGroupOf(k, groups))
		if got, _ := rv.Value(); got != value(i, rounds-1) {
			t.Fatalf("capture: %s = %.12q, want the last update", k, got)
		}
	}
	if n := restored.NumEntries(); n != keys {
		t.Fatalf("capture holds %d entries, want %d", n, keys)
	}
}
