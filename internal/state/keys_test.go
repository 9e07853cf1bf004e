package state

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// fill gives keys k0..k(n-1) a value and a list entry, spread over the
// backend's key groups.
func fill(t *testing.T, b *KeyedBackend[string], n, maxPar int) (*ValueState[string, int], *ListState[string, int]) {
	t.Helper()
	v, _ := Value[string, int](b, "v")
	l, _ := List[string, int](b, "l")
	for i := range n {
		k := fmt.Sprint("k", i)
		b.SetCurrentKey(k, keyGroupOf(k, maxPar))
		v.Update(i)
		l.Add(i)
	}
	mustNoErr(t, b)
	return v, l
}

func TestApplyToAllKeysVisitsEveryKeyOnceInKeyGroupOrder(t *testing.T) {
	const maxPar, n = 8, 200
	b := NewKeyedBackend[string](0, maxPar-1)
	v, _ := fill(t, b, n, maxPar)

	var seen []string
	lastGroup := -1
	err := b.ApplyToAllKeys("v", func(k string) error {
		if b.CurrentKey() != k {
			t.Fatalf("current key %q, fn got %q", b.CurrentKey(), k)
		}
		if g := b.CurrentKeyGroup(); g < lastGroup || g != keyGroupOf(k, maxPar) {
			t.Fatalf("key %q in group %d after group %d", k, g, lastGroup)
		}
		lastGroup = b.CurrentKeyGroup()
		if got, ok := v.Value(); !ok || fmt.Sprint("k", got) != k {
			t.Fatalf("key %q: Value = %d, %v", k, got, ok)
		}
		seen = append(seen, k)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != n {
		t.Fatalf("visited %d keys, want %d", len(seen), n)
	}
	slices.Sort(seen)
	if len(slices.Compact(seen)) != n {
		t.Fatalf("a key was visited twice")
	}
}

func TestApplyToAllKeysClearing(t *testing.T) {
	const maxPar, n = 4, 100
	b := NewKeyedBackend[string](0, maxPar-1)
	v, l := fill(t, b, n, maxPar)

	// Clear the iterated state itself for even values, another state for all.
	visited := 0
	err := b.ApplyToAllKeys("v", func(k string) error {
		visited++
		if x, _ := v.Value(); x%2 == 0 {
			v.Clear()
		} else {
			v.Update(-x)
		}
		l.Clear()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mustNoErr(t, b)
	if visited != n {
		t.Fatalf("visited %d keys, want %d", visited, n)
	}
	if got := b.NumEntries(); got != n/2 {
		t.Fatalf("NumEntries = %d, want %d", got, n/2)
	}
	for i := range n {
		k := fmt.Sprint("k", i)
		b.SetCurrentKey(k, keyGroupOf(k, maxPar))
		x, ok := v.Value()
		if want := i%2 == 1; ok != want || (ok && x != -i) {
			t.Errorf("key %s: Value = %d, %v", k, x, ok)
		}
	}
}

func TestApplyToAllKeysSkipsKeysClearedByEarlierCalls(t *testing.T) {
	b := NewKeyedBackend[string](0, 0)
	v, _ := fill(t, b, 10, 1)
	// The first call clears every key through SetCurrentKey; no other key
	// may be visited afterwards.
	visited := 0
	err := b.ApplyToAllKeys("v", func(string) error {
		visited++
		for i := range 10 {
			b.SetCurrentKey(fmt.Sprint("k", i), 0)
			v.Clear()
		}
		return nil
	})
	if err != nil || visited != 1 {
		t.Fatalf("err = %v, visited = %d, want nil, 1", err, visited)
	}
}

func TestApplyToAllKeysRestoresCurrentKeyAndStopsAtError(t *testing.T) {
	b := NewKeyedBackend[string](0, 3)
	fill(t, b, 20, 4)
	b.SetCurrentKey("before", 2)

	boom := errors.New("boom")
	calls := 0
	err := b.ApplyToAllKeys("v", func(string) error {
		calls++
		if calls == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || calls != 3 {
		t.Fatalf("err = %v after %d calls, want boom after 3", err, calls)
	}
	if b.CurrentKey() != "before" || b.CurrentKeyGroup() != 2 {
		t.Fatalf("current key %q/%d not restored", b.CurrentKey(), b.CurrentKeyGroup())
	}
	if b.Err() != nil {
		t.Fatalf("an error from fn must not be recorded: %v", b.Err())
	}

	if err := b.ApplyToAllKeys("missing", func(string) error { return nil }); !errors.Is(err, ErrUnknownState) {
		t.Fatalf("unknown state: err = %v", err)
	}
}
