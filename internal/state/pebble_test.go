package state_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/state"
)

func pebbleBackends(t *testing.T, p int) []*state.KeyedBackend[string] {
	t.Helper()
	return backendsWith(p, func(start, end int) *state.KeyedBackend[string] {
		b, err := state.OpenPebble[string](start, end, t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = b.Close() })
		return b
	})
}

// checkFilled checks the state fill wrote for k0..k(n-1).
func checkFilled(t *testing.T, bs []*state.KeyedBackend[string], n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("k%d", i)
		b := owner(bs, kgOf(k))
		b.SetCurrentKey(k, kgOf(k))
		v, _ := state.Value[string, int64](b, "count")
		l, _ := state.List[string, string](b, "names")
		m, _ := state.Map[string, int, bool](b, "seen")
		if got, ok := v.Value(); !ok || got != int64(i) {
			t.Fatalf("%s count = %d %v", k, got, ok)
		}
		if !slices.Equal(l.Get(), []string{k, k + "!"}) {
			t.Fatalf("%s names = %v", k, l.Get())
		}
		if want := map[int]bool{i: i%2 == 0}; !maps.Equal(maps.Collect(m.All()), want) {
			t.Fatalf("%s seen = %v", k, maps.Collect(m.All()))
		}
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// A Pebble capture's files, restored at another parallelism by copying
// each new subtask's key groups out of every old database, hold every
// key's state; writes after the capture are not in it.
func TestPebbleCaptureRescales(t *testing.T) {
	const n = 300
	old := pebbleBackends(t, 2)
	fill(t, old, n)
	var dirs []string
	for i, b := range old {
		dir := filepath.Join(t.TempDir(), fmt.Sprint("cp", i))
		c, err := b.Capture(dir)
		if err != nil {
			t.Fatal(err)
		}
		files, err := c.Files()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(files, func(f string) bool { return strings.HasSuffix(f, ".sst") }) {
			t.Fatalf("capture files %v hold no SST", files)
		}
		dirs = append(dirs, dir)
		// Not released: the directory stands for the downloaded files.
	}
	// Changed after the capture: not in it.
	b := owner(old, kgOf("k1"))
	b.SetCurrentKey("k1", kgOf("k1"))
	v, _ := state.Value[string, int64](b, "count")
	v.Update(-1)

	for _, p := range []int{3, 1} {
		bs := pebbleBackends(t, p)
		for _, nb := range bs {
			for _, dir := range dirs {
				if err := nb.CopyFromPebble(dir); err != nil {
					t.Fatal(err)
				}
			}
		}
		checkFilled(t, bs, n)
	}
}

// State moves between the backends through sections: a savepoint of a
// heap job restores into Pebble and back, at other parallelisms.
func TestSectionsMoveBetweenBackends(t *testing.T) {
	const n = 200
	heap := backends(2)
	fill(t, heap, n)
	secs := snapshot(t, heap)
	pb := pebbleBackends(t, 3)
	restore(t, pb, secs)
	checkFilled(t, pb, n)

	// The sections of a Pebble capture restore into the heap.
	secs = map[int][]byte{}
	for _, b := range pb {
		c, err := b.Capture(filepath.Join(t.TempDir(), "cp"))
		if err != nil {
			t.Fatal(err)
		}
		s, e := c.KeyGroupRange()
		for kg := s; kg <= e; kg++ {
			if secs[kg], err = c.Section(nil, kg); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Release(); err != nil {
			t.Fatal(err)
		}
	}
	back := backends(1)
	restore(t, back, secs)
	checkFilled(t, back, n)
}

// A restored state that no operator registers is kept by a Pebble
// backend's captures, in their pending sections.
func TestPebbleKeepsUnregisteredState(t *testing.T) {
	heap := backends(1)
	fill(t, heap, 20)
	secs := snapshot(t, heap)
	pb := pebbleBackends(t, 1)
	restore(t, pb, secs)
	b := pb[0]
	// Only "count" is registered again.
	b.SetCurrentKey("k3", kgOf("k3"))
	if _, err := state.Value[string, int64](b, "count"); err != nil {
		t.Fatal(err)
	}
	c, err := b.Capture(filepath.Join(t.TempDir(), "cp"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	got := map[int][]byte{}
	for kg := 0; kg < maxP; kg++ {
		got[kg] = c.PendingSection(nil, kg)
	}
	// The pending sections hold names and seen, not count (it is in the
	// files).
	again := backends(1)
	restore(t, again, got)
	a := again[0]
	a.SetCurrentKey("k3", kgOf("k3"))
	l, _ := state.List[string, string](a, "names")
	if !slices.Equal(l.Get(), []string{"k3", "k3!"}) {
		t.Fatalf("names = %v", l.Get())
	}
	v, _ := state.Value[string, int64](a, "count")
	if x, ok := v.Value(); ok {
		t.Fatalf("count %d is in the pending sections", x)
	}
}
