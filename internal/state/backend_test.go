package state

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestNewKeyedBackendPanicsOnBadRange(t *testing.T) {
	for _, r := range [][2]int{{-1, 3}, {4, 3}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewKeyedBackend(%d, %d) did not panic", r[0], r[1])
				}
			}()
			NewKeyedBackend[string](r[0], r[1])
		}()
	}
	b := NewKeyedBackend[string](5, 5) // a single key group is fine
	if s, e := b.KeyGroupRange(); s != 5 || e != 5 {
		t.Fatalf("KeyGroupRange = %d, %d", s, e)
	}
}

func TestSetCurrentKey(t *testing.T) {
	b := NewKeyedBackend[string](4, 7)
	if b.CurrentKeyGroup() != -1 || b.CurrentKey() != "" {
		t.Fatalf("fresh backend has current key %q/%d", b.CurrentKey(), b.CurrentKeyGroup())
	}
	b.SetCurrentKey("a", 4)
	b.SetCurrentKey("b", 7)
	mustNoErr(t, b)
	if b.CurrentKey() != "b" || b.CurrentKeyGroup() != 7 {
		t.Fatalf("current key %q/%d, want b/7", b.CurrentKey(), b.CurrentKeyGroup())
	}
}

func TestKeyGroupOutOfRange(t *testing.T) {
	for _, kg := range []int{3, 8, -1} {
		t.Run(fmt.Sprint(kg), func(t *testing.T) {
			b := NewKeyedBackend[string](4, 7)
			v, _ := Value[string, int](b, "v")
			b.SetCurrentKey("a", 5)
			v.Update(1)

			b.SetCurrentKey("x", kg) // must not panic
			if !errors.Is(b.Err(), ErrKeyGroupOutOfRange) {
				t.Fatalf("Err = %v, want ErrKeyGroupOutOfRange", b.Err())
			}
			if b.CurrentKey() != "x" || b.CurrentKeyGroup() != kg {
				t.Fatalf("current key %q/%d", b.CurrentKey(), b.CurrentKeyGroup())
			}
			// Accesses are no-ops that do not panic.
			v.Update(2)
			if got, ok := v.Value(); ok || got != 0 {
				t.Fatalf("Value = %d, %v, want zero", got, ok)
			}
			v.Clear()
			if b.NumEntries() != 1 {
				t.Fatalf("NumEntries = %d, want 1", b.NumEntries())
			}
			// The first error is kept.
			if !errors.Is(b.Err(), ErrKeyGroupOutOfRange) {
				t.Fatalf("Err = %v, want the first error kept", b.Err())
			}
			// A valid key makes the backend usable again.
			b.SetCurrentKey("a", 5)
			if got, _ := v.Value(); got != 1 {
				t.Fatalf("Value = %d, want 1", got)
			}
		})
	}
}

func TestNoCurrentKey(t *testing.T) {
	b := NewKeyedBackend[string](0, 3)
	v, _ := Value[string, int](b, "v")
	r, _ := Reducing(b, "r", func(a, b int) (int, error) { return a + b, nil })
	a, _ := Aggregating(b, "a",
		func(acc, in int) (int, error) { return acc + in, nil },
		func() int { return 0 },
		func(acc int) (int, error) { return acc, nil })
	mustNoErr(t, b)

	v.Update(1)
	if !errors.Is(b.Err(), ErrNoCurrentKey) {
		t.Fatalf("Err = %v, want ErrNoCurrentKey", b.Err())
	}
	if err := r.Add(1); !errors.Is(err, ErrNoCurrentKey) {
		t.Fatalf("ReducingState.Add = %v, want ErrNoCurrentKey", err)
	}
	if err := a.Add(1); !errors.Is(err, ErrNoCurrentKey) {
		t.Fatalf("AggregatingState.Add = %v, want ErrNoCurrentKey", err)
	}
	if _, _, err := a.Get(); !errors.Is(err, ErrNoCurrentKey) {
		t.Fatalf("AggregatingState.Get = %v, want ErrNoCurrentKey", err)
	}
	if b.NumEntries() != 0 {
		t.Fatalf("NumEntries = %d, want 0", b.NumEntries())
	}
}

func TestKeyGroupIsolation(t *testing.T) {
	// The same key in two key groups is two independent entries: the key
	// group is part of the address, as it would be after a bad key-group
	// function, and snapshots are cut along it.
	b := NewKeyedBackend[string](10, 12)
	v, _ := Value[string, string](b, "v")
	l, _ := List[string, int](b, "l")
	for kg := 10; kg <= 12; kg++ {
		b.SetCurrentKey("k", kg)
		v.Update(fmt.Sprint("group", kg))
		l.Add(kg)
	}
	b.SetCurrentKey("k", 11)
	v.Clear()
	l.Clear()
	mustNoErr(t, b)

	for kg, want := range map[int]string{10: "group10", 11: "", 12: "group12"} {
		b.SetCurrentKey("k", kg)
		if got, _ := v.Value(); got != want {
			t.Errorf("group %d: Value = %q, want %q", kg, got, want)
		}
		wantKeys := []string{"k"}
		if want == "" {
			wantKeys = nil
		}
		if got := sortedKeys(b, "v", kg); !slices.Equal(got, wantKeys) {
			t.Errorf("group %d: Keys = %v, want %v", kg, got, wantKeys)
		}
	}
	if b.NumEntries() != 4 {
		t.Fatalf("NumEntries = %d, want 4", b.NumEntries())
	}
	if got := slices.Collect(b.Keys("v", 13)); got != nil {
		t.Fatalf("Keys of unowned group = %v", got)
	}
	if got := slices.Collect(b.Keys("nope", 10)); got != nil {
		t.Fatalf("Keys of unknown state = %v", got)
	}
}

func TestRegistration(t *testing.T) {
	sum := func(a, b int) (int, error) { return a + b, nil }
	tests := []struct {
		name    string
		first   func(b *KeyedBackend[string]) (any, error)
		second  func(b *KeyedBackend[string]) (any, error)
		wantErr error // nil: second returns the same state
	}{
		{
			name:   "value same type",
			first:  func(b *KeyedBackend[string]) (any, error) { return Value[string, int](b, "s") },
			second: func(b *KeyedBackend[string]) (any, error) { return Value[string, int](b, "s") },
		},
		{
			name:    "value other type",
			first:   func(b *KeyedBackend[string]) (any, error) { return Value[string, int](b, "s") },
			second:  func(b *KeyedBackend[string]) (any, error) { return Value[string, int64](b, "s") },
			wantErr: ErrIncompatibleState,
		},
		{
			name:    "value then list",
			first:   func(b *KeyedBackend[string]) (any, error) { return Value[string, int](b, "s") },
			second:  func(b *KeyedBackend[string]) (any, error) { return List[string, int](b, "s") },
			wantErr: ErrIncompatibleState,
		},
		{
			name:    "value then reducing",
			first:   func(b *KeyedBackend[string]) (any, error) { return Value[string, int](b, "s") },
			second:  func(b *KeyedBackend[string]) (any, error) { return Reducing(b, "s", sum) },
			wantErr: ErrIncompatibleState,
		},
		{
			name:   "map same types",
			first:  func(b *KeyedBackend[string]) (any, error) { return Map[string, string, int](b, "s") },
			second: func(b *KeyedBackend[string]) (any, error) { return Map[string, string, int](b, "s") },
		},
		{
			name:    "map other user key",
			first:   func(b *KeyedBackend[string]) (any, error) { return Map[string, string, int](b, "s") },
			second:  func(b *KeyedBackend[string]) (any, error) { return Map[string, int, int](b, "s") },
			wantErr: ErrIncompatibleState,
		},
		{
			name:  "reducing twice keeps first function",
			first: func(b *KeyedBackend[string]) (any, error) { return Reducing(b, "s", sum) },
			second: func(b *KeyedBackend[string]) (any, error) {
				return Reducing(b, "s", func(a, b int) (int, error) { return a * b, nil })
			},
		},
		{
			name: "aggregating other output",
			first: func(b *KeyedBackend[string]) (any, error) {
				return Aggregating(b, "s", func(a, i int) (int, error) { return a + i, nil }, func() int { return 0 },
					func(a int) (int, error) { return a, nil })
			},
			second: func(b *KeyedBackend[string]) (any, error) {
				return Aggregating(b, "s", func(a, i int) (int, error) { return a + i, nil }, func() int { return 0 },
					func(a int) (string, error) { return fmt.Sprint(a), nil })
			},
			wantErr: ErrIncompatibleState,
		},
		{
			name:    "nil reduce",
			first:   func(b *KeyedBackend[string]) (any, error) { return Value[string, int](b, "other") },
			second:  func(b *KeyedBackend[string]) (any, error) { return Reducing[string, int](b, "s", nil) },
			wantErr: ErrNilFunction,
		},
		{
			name:  "nil newAcc",
			first: func(b *KeyedBackend[string]) (any, error) { return Value[string, int](b, "other") },
			second: func(b *KeyedBackend[string]) (any, error) {
				return Aggregating[string, int, int, int](b, "s", func(a, i int) (int, error) { return a + i, nil }, nil,
					func(a int) (int, error) { return a, nil })
			},
			wantErr: ErrNilFunction,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewKeyedBackend[string](0, 0)
			s1, err := tt.first(b)
			if err != nil {
				t.Fatal(err)
			}
			s2, err := tt.second(b)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("second registration: err = %v, want %v", err, tt.wantErr)
			}
			if !errors.Is(b.Err(), tt.wantErr) {
				t.Fatalf("Err = %v, want %v", b.Err(), tt.wantErr)
			}
			if tt.wantErr == nil && s1 != s2 {
				t.Fatalf("second registration returned a different state")
			}
		})
	}

	t.Run("error names the types", func(t *testing.T) {
		b := NewKeyedBackend[string](0, 0)
		Value[string, int](b, "count")
		_, err := List[string, int](b, "count")
		const want = `state: incompatible state registration: "count" is a *state.ValueState[string,int], requested as *state.ListState[string,int]`
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant  %s", err, want)
		}
	})

	t.Run("kept reduce function is used", func(t *testing.T) {
		b := NewKeyedBackend[string](0, 0)
		Reducing(b, "s", sum)
		r, _ := Reducing(b, "s", func(a, b int) (int, error) { return a * b, nil })
		b.SetCurrentKey("k", 0)
		r.Add(3)
		r.Add(4)
		if got, _ := r.Get(); got != 7 {
			t.Fatalf("Get = %d, want 7 (the first registration's sum)", got)
		}
	})
}

func TestStateNamesAndNumEntries(t *testing.T) {
	b := NewKeyedBackend[int](0, 1)
	v, _ := Value[int, int](b, "zeta")
	m, _ := Map[int, string, int](b, "alpha")
	l, _ := List[int, int](b, "mid")
	if got, want := b.StateNames(), []string{"alpha", "mid", "zeta"}; !slices.Equal(got, want) {
		t.Fatalf("StateNames = %v, want %v", got, want)
	}
	b.SetCurrentKey(1, 0)
	v.Update(1)
	m.Put("a", 1)
	m.Put("b", 2) // a map state counts one entry per key
	b.SetCurrentKey(2, 1)
	l.Add(1)
	l.Add(2)
	if b.NumEntries() != 3 {
		t.Fatalf("NumEntries = %d, want 3", b.NumEntries())
	}
	l.Clear()
	b.SetCurrentKey(1, 0)
	m.Remove("a")
	m.Remove("b")
	v.Clear()
	if b.NumEntries() != 0 {
		t.Fatalf("NumEntries = %d, want 0 after clearing", b.NumEntries())
	}
	mustNoErr(t, b)
}
