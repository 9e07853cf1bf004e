package state_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/state"
)

const maxP = 16

func kgOf(k string) int { return keygroup.Of(uint32(len(k))*2654435761+uint32(k[len(k)-1]), maxP) }

// fill writes value, list and map state for keys k0..k(n-1) into the
// backends owning their key groups.
func fill(t *testing.T, bs []*state.KeyedBackend[string], n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("k%d", i)
		b := owner(bs, kgOf(k))
		b.SetCurrentKey(k, kgOf(k))
		v, _ := state.Value[string, int64](b, "count")
		v.Update(int64(i))
		l, _ := state.List[string, string](b, "names")
		l.AddAll([]string{k, k + "!"})
		m, _ := state.Map[string, int, bool](b, "seen")
		m.Put(i, i%2 == 0)
	}
}

func owner(bs []*state.KeyedBackend[string], kg int) *state.KeyedBackend[string] {
	for _, b := range bs {
		if s, e := b.KeyGroupRange(); kg >= s && kg <= e {
			return b
		}
	}
	panic(kg)
}

func backends(p int) []*state.KeyedBackend[string] {
	return backendsWith(p, func(start, end int) *state.KeyedBackend[string] {
		return state.NewKeyedBackend[string](start, end)
	})
}

// backendsWith makes the backends of p subtasks with open.
func backendsWith(p int, open func(start, end int) *state.KeyedBackend[string]) []*state.KeyedBackend[string] {
	var bs []*state.KeyedBackend[string]
	for i := 0; i < p; i++ {
		r := keygroup.RangeFor(maxP, p, i)
		bs = append(bs, open(r.Start, r.End))
	}
	return bs
}

// snapshot returns the section of every key group.
func snapshot(t *testing.T, bs []*state.KeyedBackend[string]) map[int][]byte {
	t.Helper()
	out := map[int][]byte{}
	for _, b := range bs {
		s, e := b.KeyGroupRange()
		for kg := s; kg <= e; kg++ {
			sec, err := b.SnapshotKeyGroup(nil, kg)
			if err != nil {
				t.Fatal(err)
			}
			out[kg] = sec
		}
	}
	return out
}

func restore(t *testing.T, bs []*state.KeyedBackend[string], secs map[int][]byte) {
	t.Helper()
	for _, b := range bs {
		s, e := b.KeyGroupRange()
		for kg := s; kg <= e; kg++ {
			if err := b.RestoreKeyGroup(kg, secs[kg]); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Key-group redistribution: state written at parallelism 2 restores at 3
// and then at 1 with every key's state intact.
func TestSnapshotRestoreAcrossParallelism(t *testing.T) {
	const n = 200
	old := backends(2)
	fill(t, old, n)
	secs := snapshot(t, old)
	for _, p := range []int{3, 1, 5} {
		bs := backends(p)
		restore(t, bs, secs)
		checkFilled(t, bs, n)
		secs = snapshot(t, bs)
	}
}

// A restored state nobody registers survives the next snapshot.
func TestUnregisteredStateIsKept(t *testing.T) {
	old := backends(1)
	fill(t, old, 20)
	secs := snapshot(t, old)
	mid := backends(1)
	restore(t, mid, secs) // registers nothing
	again := backends(1)
	restore(t, again, snapshot(t, mid))
	b := again[0]
	b.SetCurrentKey("k7", kgOf("k7"))
	v, _ := state.Value[string, int64](b, "count")
	if got, ok := v.Value(); !ok || got != 7 {
		t.Fatalf("count = %d %v after a restore that did not register it", got, ok)
	}
}

func TestCorruptSectionsAreErrors(t *testing.T) {
	old := backends(1)
	fill(t, old, 5)
	kg := kgOf("k1")
	sec, err := old[0].SnapshotKeyGroup(nil, kg)
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(sec); cut++ {
		b := backends(1)[0]
		_, _ = state.Value[string, int64](b, "count")
		_, _ = state.List[string, string](b, "names")
		_, _ = state.Map[string, int, bool](b, "seen")
		err := b.RestoreKeyGroup(kg, sec[:cut])
		if cut == 0 {
			if err == nil {
				t.Fatal("empty section accepted")
			}
			continue
		}
		if err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", cut, len(sec))
		}
		if !errors.Is(err, state.ErrCorruptSnapshot) {
			t.Fatalf("truncated to %d: err = %v", cut, err)
		}
	}
}
