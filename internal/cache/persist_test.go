package cache

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func hexID(c byte) string { return strings.Repeat(string(c), 32) }

// A persistent registry's dataset outlives it: a second registry on the
// same directory (as a second process would) finds and reads it; Close
// keeps it, Release and DropDir delete manifest and files.
func TestPersistentRegistry(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	vs := []string{"a", "bb", "ccc"}
	r1 := NewRegistry(Options{Dir: dir, Persistent: true})
	writeID(t, r1, hexID('a'), vs)
	writeID(t, r1, hexID('b'), vs)
	if err := r1.Close(); err != nil {
		t.Fatal(err)
	}

	r2 := NewRegistry(Options{Dir: dir, Persistent: true})
	defer r2.Close()
	ds, ok := r2.Lookup(hexID('a'))
	if !ok {
		t.Fatal("a second registry on the directory does not find the dataset")
	}
	if err := ds.Check(); err != nil {
		t.Fatal(err)
	}
	got, _, err := readAll[string](ds)
	if err != nil || !slices.Equal(got, vs) {
		t.Fatalf("read %q, %v; want %q", got, err, vs)
	}
	list, err := ListDir(dir)
	if err != nil || len(list) != 2 || list[0].ID != hexID('a') {
		t.Fatalf("ListDir = %v, %v; want both, a (just used) first", ids(list), err)
	}
	if err := r2.Release(hexID('a')); err != nil {
		t.Fatal(err)
	}
	if _, ok := r2.Lookup(hexID('a')); ok {
		t.Fatal("released dataset still found")
	}
	for _, p := range ds.Partitions {
		if _, err := os.Stat(p.Data); !os.IsNotExist(err) {
			t.Fatalf("partition file %s after Release: %v", p.Data, err)
		}
	}
	if found, err := DropDir(dir, hexID('b')); !found || err != nil {
		t.Fatalf("DropDir = %v, %v", found, err)
	}
	if found, err := DropDir(dir, hexID('b')); found || err != nil {
		t.Fatalf("DropDir of a dropped dataset = %v, %v; want false, nil", found, err)
	}
	if _, err := DropDir(dir, "../x"); err == nil {
		t.Fatal("DropDir of a bad id: no error")
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Fatalf("files left after dropping everything: %v", left)
	}
}

// A damaged manifest is no dataset: Lookup misses (the stream is
// computed again) and ListDir reports it.
func TestDamagedManifest(t *testing.T) {
	dir := t.TempDir()
	r := NewRegistry(Options{Dir: dir, Persistent: true})
	defer r.Close()
	writeID(t, r, hexID('c'), []int{1, 2})
	if err := os.WriteFile(manifestPath(dir, hexID('c')), []byte(`{"version":1,`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup(hexID('c')); ok {
		t.Fatal("a truncated manifest was found")
	}
	if _, err := ListDir(dir); err == nil {
		t.Fatal("ListDir does not report the damaged manifest")
	}
}

// Over the quota, the least recently used datasets are evicted; one
// larger than the quota by itself is not kept.
func TestQuotaEvictsLeastRecentlyUsed(t *testing.T) {
	for _, persistent := range []bool{false, true} {
		t.Run(map[bool]string{false: "memory", true: "persistent"}[persistent], func(t *testing.T) {
			dir := t.TempDir()
			payload := make([]string, 2000)
			for i := range payload {
				payload[i] = strings.Repeat("y", 100)
			}
			probe := NewRegistry(Options{Dir: t.TempDir()})
			one, _ := writeID(t, probe, hexID('0'), payload)
			size := one.Bytes()
			_ = probe.Close()

			r := NewRegistry(Options{Dir: dir, Persistent: persistent, Quota: 2*size + size/2})
			defer r.Close()
			writeID(t, r, hexID('a'), payload)
			writeID(t, r, hexID('b'), payload)
			age(t, r, dir, hexID('a'), hexID('b'))
			if _, ok := r.Lookup(hexID('a')); !ok { // a is now the most recent
				t.Fatal("a missing")
			}
			writeID(t, r, hexID('c'), payload) // 3 > 2.5: b goes
			_, okA := r.Lookup(hexID('a'))
			_, okB := r.Lookup(hexID('b'))
			_, okC := r.Lookup(hexID('c'))
			if !okA || okB || !okC {
				t.Fatalf("after c: a %v, b %v, c %v; want b evicted", okA, okB, okC)
			}

			small := NewRegistry(Options{Dir: t.TempDir(), Persistent: persistent, Quota: size / 2})
			defer small.Close()
			prodOK := commitOne(t, small, hexID('d'), payload)
			if prodOK {
				t.Fatal("a dataset larger than the quota was kept")
			}
		})
	}
}

// age makes the last use of ids an hour old, in order.
func age(t *testing.T, r *Registry, dir string, ids ...string) {
	t.Helper()
	for i, id := range ids {
		when := time.Now().Add(-time.Hour + time.Duration(i)*time.Minute)
		if r.opts.Persistent {
			if err := os.Chtimes(manifestPath(dir, id), when, when); err != nil {
				t.Fatal(err)
			}
			continue
		}
		r.mu.Lock()
		r.mu.complete[id].LastUsed = when
		r.mu.Unlock()
	}
}

func ids(ds []*Dataset) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.ID[:4])
	}
	return out
}
