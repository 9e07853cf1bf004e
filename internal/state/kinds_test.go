package state

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"testing"
)

func TestValueState(t *testing.T) {
	b := NewKeyedBackend[string](0, 0)
	v, _ := Value[string, int64](b, "v")
	b.SetCurrentKey("a", 0)
	if _, ok := v.Value(); ok {
		t.Fatal("fresh key has a value")
	}
	v.Update(0) // the zero value is a value
	if x, ok := v.Value(); !ok || x != 0 {
		t.Fatalf("Value = %d, %v, want 0, true", x, ok)
	}
	v.Update(5)
	b.SetCurrentKey("b", 0)
	v.Update(7)
	b.SetCurrentKey("a", 0)
	if x, _ := v.Value(); x != 5 {
		t.Fatalf("Value(a) = %d, want 5", x)
	}
	v.Clear()
	v.Clear() // clearing twice is fine
	if _, ok := v.Value(); ok || b.NumEntries() != 1 {
		t.Fatalf("after Clear: ok = %v, NumEntries = %d", ok, b.NumEntries())
	}
	mustNoErr(t, b)
}

func TestListState(t *testing.T) {
	tests := []struct {
		name string
		ops  func(l *ListState[string, int])
		want []int
	}{
		{"empty", func(l *ListState[string, int]) {}, nil},
		{"add", func(l *ListState[string, int]) { l.Add(1); l.Add(2) }, []int{1, 2}},
		{"add all", func(l *ListState[string, int]) { l.Add(1); l.AddAll([]int{2, 3}) }, []int{1, 2, 3}},
		{"add all empty", func(l *ListState[string, int]) { l.AddAll(nil) }, nil},
		{"update", func(l *ListState[string, int]) { l.Add(1); l.Update([]int{4, 5}) }, []int{4, 5}},
		{"update empty clears", func(l *ListState[string, int]) { l.Add(1); l.Update([]int{}) }, nil},
		{"clear", func(l *ListState[string, int]) { l.Add(1); l.Clear() }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewKeyedBackend[string](0, 0)
			l, _ := List[string, int](b, "l")
			b.SetCurrentKey("k", 0)
			tt.ops(l)
			got := l.Get()
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Get = %v, want %v", got, tt.want)
			}
			if wantEntries := min(len(tt.want), 1); b.NumEntries() != wantEntries {
				t.Fatalf("NumEntries = %d, want %d", b.NumEntries(), wantEntries)
			}
			mustNoErr(t, b)
		})
	}
}

func TestListStateDoesNotAlias(t *testing.T) {
	b := NewKeyedBackend[string](0, 0)
	l, _ := List[string, int](b, "l")
	b.SetCurrentKey("k", 0)

	in := make([]int, 2, 10)
	in[0], in[1] = 1, 2
	l.Update(in)
	in[0] = 99 // the state copied in
	l.Add(3)
	if got := in[:3]; got[2] == 3 {
		t.Fatal("Add wrote into the caller's array passed to Update")
	}

	view := l.Get()
	_ = append(view, 100) // appending to the view copies
	l.Add(4)
	if got := l.Get(); !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Fatalf("Get = %v", got)
	}

	add := []int{7, 8}
	b.SetCurrentKey("other", 0)
	l.AddAll(add)
	add[0] = 0
	if got := l.Get(); !slices.Equal(got, []int{7, 8}) {
		t.Fatalf("AddAll aliased its argument: Get = %v", got)
	}
}

func TestMapState(t *testing.T) {
	b := NewKeyedBackend[string](0, 0)
	m, _ := Map[string, string, int](b, "m")
	b.SetCurrentKey("k", 0)
	if !m.IsEmpty() || m.Contains("x") {
		t.Fatal("fresh key is not empty")
	}
	for i := range 5 {
		m.Put(strconv.Itoa(i), i)
	}
	m.Put("0", 10)
	if x, ok := m.Get("0"); !ok || x != 10 {
		t.Fatalf("Get(0) = %d, %v", x, ok)
	}
	if _, ok := m.Get("9"); ok {
		t.Fatal("Get(9) found a value")
	}
	want := map[string]int{"0": 10, "1": 1, "2": 2, "3": 3, "4": 4}
	if got := maps.Collect(m.All()); !maps.Equal(got, want) {
		t.Fatalf("All = %v, want %v", got, want)
	}
	if got := slices.Sorted(m.Keys()); !slices.Equal(got, []string{"0", "1", "2", "3", "4"}) {
		t.Fatalf("Keys = %v", got)
	}

	// Other keys do not see these entries.
	b.SetCurrentKey("other", 0)
	if !m.IsEmpty() || len(maps.Collect(m.All())) != 0 {
		t.Fatal("other key sees entries")
	}

	// Removing every entry, also while ranging, removes the key's state.
	b.SetCurrentKey("k", 0)
	m.Remove("missing")
	for uk := range m.Keys() {
		m.Remove(uk)
	}
	if !m.IsEmpty() || b.NumEntries() != 0 {
		t.Fatalf("after removing all: IsEmpty = %v, NumEntries = %d", m.IsEmpty(), b.NumEntries())
	}
	m.Put("a", 1)
	m.Clear()
	if m.Contains("a") || b.NumEntries() != 0 {
		t.Fatal("Clear left state behind")
	}

	// Early break of the iterators.
	m.Put("a", 1)
	m.Put("b", 2)
	for range m.All() {
		break
	}
	for range m.Keys() {
		break
	}
	mustNoErr(t, b)
}

func TestReducingState(t *testing.T) {
	b := NewKeyedBackend[string](0, 0)
	boom := errors.New("boom")
	r, _ := Reducing(b, "r", func(a, b int) (int, error) {
		if b < 0 {
			return 0, boom
		}
		return a*10 + b, nil // order-sensitive: reduce(stored, new)
	})
	b.SetCurrentKey("k", 0)
	if _, ok := r.Get(); ok {
		t.Fatal("fresh key has a value")
	}
	for _, x := range []int{1, 2, 3} {
		if err := r.Add(x); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := r.Get(); got != 123 {
		t.Fatalf("Get = %d, want 123", got)
	}
	if err := r.Add(-1); !errors.Is(err, boom) {
		t.Fatalf("Add = %v, want boom", err)
	}
	if got, _ := r.Get(); got != 123 {
		t.Fatalf("after failed Add: Get = %d, want 123", got)
	}
	r.Clear()
	if _, ok := r.Get(); ok || b.NumEntries() != 0 {
		t.Fatal("Clear left state behind")
	}
	mustNoErr(t, b)
}

func TestAggregatingState(t *testing.T) {
	type avg struct{ sum, n int }
	boom := errors.New("boom")
	b := NewKeyedBackend[string](0, 0)
	a, err := Aggregating(b, "avg",
		func(acc avg, in int) (avg, error) {
			if in < 0 {
				return acc, boom
			}
			return avg{acc.sum + in, acc.n + 1}, nil
		},
		func() avg { return avg{} },
		func(acc avg) (float64, error) {
			if acc.sum == 13 {
				return 0, boom
			}
			return float64(acc.sum) / float64(acc.n), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	b.SetCurrentKey("k", 0)
	if _, ok, err := a.Get(); ok || err != nil {
		t.Fatalf("fresh key: ok = %v, err = %v", ok, err)
	}
	for _, x := range []int{1, 2, 6} {
		if err := a.Add(x); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok, err := a.Get(); !ok || err != nil || got != 3 {
		t.Fatalf("Get = %v, %v, %v, want 3", got, ok, err)
	}
	if err := a.Add(-1); !errors.Is(err, boom) {
		t.Fatalf("Add = %v, want boom", err)
	}
	if got, _, _ := a.Get(); got != 3 {
		t.Fatalf("failed Add changed the state: %v", got)
	}
	a.Add(4) // sum 13: result fails
	if got, ok, err := a.Get(); !errors.Is(err, boom) || ok || got != 0 {
		t.Fatalf("Get = %v, %v, %v, want 0, false, boom", got, ok, err)
	}
	a.Clear()
	if _, ok, _ := a.Get(); ok || b.NumEntries() != 0 {
		t.Fatal("Clear left state behind")
	}
	mustNoErr(t, b)
}
