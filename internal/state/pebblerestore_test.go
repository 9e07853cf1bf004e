package state_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/state"
)

// linkDir is the internal tests' helper (see helpers_test.go).
var linkDir = state.LinkDir

// capturePebble captures every backend into a directory of its own and
// returns them as restore sources.
func capturePebble(t testing.TB, bs []*state.KeyedBackend[string]) []state.PebbleSource {
	t.Helper()
	var out []state.PebbleSource
	for i, b := range bs {
		dir := filepath.Join(t.TempDir(), fmt.Sprint("cp", i))
		c, err := b.Capture(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, e := c.KeyGroupRange()
		out = append(out, state.PebbleSource{Dir: dir, KeyGroupStart: s, KeyGroupEnd: e})
		// Not released: the directory stands for the downloaded files.
	}
	return out
}

// restorePebble restores p new backends from captures, each from private
// copies of the captures it overlaps.
func restorePebble(t *testing.T, p int, caps []state.PebbleSource) []*state.KeyedBackend[string] {
	t.Helper()
	var out []*state.KeyedBackend[string]
	for i := 0; i < p; i++ {
		r := keygroup.RangeFor(maxP, p, i)
		work := t.TempDir()
		var srcs []state.PebbleSource
		for j, c := range caps {
			if c.KeyGroupEnd < r.Start || c.KeyGroupStart > r.End {
				continue
			}
			c.Dir = filepath.Join(work, fmt.Sprint("restore-", j))
			linkDir(t, caps[j].Dir, c.Dir)
			srcs = append(srcs, c)
		}
		b, err := state.RestorePebble[string](r.Start, r.End, filepath.Join(work, "db"), srcs, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = b.Close() })
		out = append(out, b)
	}
	return out
}

// checkExact checks that the backends hold exactly the state of n filled
// keys (3 entries each: count, names, seen) and that no live Pebble entry
// of a backend lies outside its key groups: clipped key groups are gone,
// not just out of reach.
func checkExact(t *testing.T, bs []*state.KeyedBackend[string], n int) {
	t.Helper()
	checkFilled(t, bs, n)
	total := 0
	for _, b := range bs {
		live, err := state.LiveKeyGroups(b)
		if err != nil {
			t.Fatal(err)
		}
		s, e := b.KeyGroupRange()
		for kg, c := range live {
			if kg < s || kg > e {
				t.Fatalf("backend [%d, %d] holds %d live entries of key group %d", s, e, c, kg)
			}
			total += c
		}
	}
	if total != 3*n {
		t.Fatalf("%d live entries in all, want %d", total, 3*n)
	}
}

// Pebble state rescales 2 -> 3 -> 1 through the files of its captures by
// clipping one old database and ingesting the spans of the others: every
// key's state is there exactly, nothing else is live, and the restored
// databases take writes and captures as any other.
func TestRestorePebbleRescales(t *testing.T) {
	const n = 400
	old := pebbleBackends(t, 2)
	fill(t, old, n)
	mid := restorePebble(t, 3, capturePebble(t, old))
	checkExact(t, mid, n)
	// Writes after a restore land in the restored database: every count
	// is written again (same value).
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("k%d", i)
		b := owner(mid, kgOf(k))
		b.SetCurrentKey(k, kgOf(k))
		v, _ := state.Value[string, int64](b, "count")
		v.Update(int64(i))
	}
	last := restorePebble(t, 1, capturePebble(t, mid))
	checkExact(t, last, n)
}

// The base is the old database that overlaps the new range most.
func TestBasePebbleSource(t *testing.T) {
	src := []state.PebbleSource{{KeyGroupStart: 0, KeyGroupEnd: 31}, {KeyGroupStart: 32, KeyGroupEnd: 63}, {KeyGroupStart: 64, KeyGroupEnd: 127}}
	for _, tt := range []struct{ start, end, want int }{
		{0, 42, 0}, {21, 63, 1}, {30, 70, 1}, {40, 127, 2}, {128, 200, -1}, {16, 47, 0},
	} {
		if got := state.BasePebbleSource(tt.start, tt.end, src); got != tt.want {
			t.Errorf("[%d, %d]: base %d, want %d", tt.start, tt.end, got, tt.want)
		}
	}
}
