package state

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// addr is where the reference model keeps a key's state: the key group is
// part of the address, as it is in the backend.
type addr struct {
	key string
	kg  int
}

// stateModel is the naive reference: plain maps keyed by address, and no
// cleverness about empty entries beyond "absent means no state".
type stateModel struct {
	values map[addr]int
	lists  map[addr][]int
	maps   map[addr]map[string]int
	sums   map[addr]int // the reducing state: a sum

	cur   addr
	valid bool
}

// TestBackendMatchesModel drives the backend with random sequences of key
// switches (some out of range) and writes to four kinds of state, and checks
// every read, the entry count and the per-key-group key sets against the
// reference after every step.
//
// It runs against every backend kind, and in the middle of a run the
// backend is captured and written again, and the captures checked at the
// end against the state as it was when captured: the copy-on-write check
// of the heap, and for Pebble the check that a capture sees every cached
// write made before it. Half of the runs scan (count entries, list keys)
// only in a "scan" step rather than after every step, so that captures
// and reads meet writes that are still only in Pebble's cache.
func TestBackendMatchesModel(t *testing.T) {
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) { checkBackendMatchesModel(t, kind) })
	}
}

func checkBackendMatchesModel(t *testing.T, kind string) {
	base := t.TempDir() // holds every capture of every rapid run
	rapid.Check(t, func(t *rapid.T) {
		start := rapid.IntRange(0, 5).Draw(t, "start")
		end := start + rapid.IntRange(0, 3).Draw(t, "width")
		b := newTestBackend[string](t, kind, start, end)
		defer b.Close()
		v, _ := Value[string, int](b, "value")
		l, _ := List[string, int](b, "list")
		m, _ := Map[string, string, int](b, "map")
		r, _ := Reducing(b, "sum", func(a, b int) (int, error) { return a + b, nil })
		ref := stateModel{
			values: map[addr]int{}, lists: map[addr][]int{},
			maps: map[addr]map[string]int{}, sums: map[addr]int{},
		}
		scanEveryStep := rapid.Bool().Draw(t, "scanEveryStep")
		keyGen := rapid.SampledFrom([]string{"a", "b", "c", "d", "e"})
		// More user keys than a small map holds (smallMapMax), so that
		// maps grow past it and shrink again.
		userKeyGen := rapid.SampledFrom([]string{"x", "y", "z", "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7"})
		var wantErr error
		type captured struct {
			c   *Capture[string]
			ref stateModel
		}
		var captures []captured

		// write applies f to the model only if the backend has a valid key,
		// mirroring the backend dropping writes without one.
		write := func(f func(a addr)) {
			if ref.valid {
				f(ref.cur)
			} else if wantErr == nil {
				wantErr = ErrNoCurrentKey
			}
		}

		t.Repeat(map[string]func(*rapid.T){
			"setKey": func(t *rapid.T) {
				k := keyGen.Draw(t, "key")
				// Mostly in range, sometimes one off either end.
				kg := rapid.IntRange(start-1, end+1).Draw(t, "kg")
				b.SetCurrentKey(k, kg)
				ref.cur, ref.valid = addr{k, kg}, kg >= start && kg <= end
				if !ref.valid && wantErr == nil {
					wantErr = ErrKeyGroupOutOfRange
				}
			},
			"valueUpdate": func(t *rapid.T) {
				x := rapid.IntRange(-5, 5).Draw(t, "x")
				v.Update(x)
				write(func(a addr) { ref.values[a] = x })
			},
			"valueClear": func(t *rapid.T) {
				v.Clear()
				write(func(a addr) { delete(ref.values, a) })
			},
			"listAdd": func(t *rapid.T) {
				x := rapid.IntRange(0, 9).Draw(t, "x")
				l.Add(x)
				write(func(a addr) { ref.lists[a] = append(slices.Clone(ref.lists[a]), x) })
			},
			"listAddAll": func(t *rapid.T) {
				xs := rapid.SliceOfN(rapid.IntRange(0, 9), 0, 3).Draw(t, "xs")
				l.AddAll(xs)
				write(func(a addr) {
					if len(xs) > 0 {
						ref.lists[a] = append(slices.Clone(ref.lists[a]), xs...)
					}
				})
			},
			"listUpdate": func(t *rapid.T) {
				xs := rapid.SliceOfN(rapid.IntRange(0, 9), 0, 3).Draw(t, "xs")
				l.Update(xs)
				write(func(a addr) {
					if len(xs) == 0 {
						delete(ref.lists, a)
					} else {
						ref.lists[a] = slices.Clone(xs)
					}
				})
			},
			"listClear": func(t *rapid.T) {
				l.Clear()
				write(func(a addr) { delete(ref.lists, a) })
			},
			"mapPut": func(t *rapid.T) {
				uk, x := userKeyGen.Draw(t, "uk"), rapid.IntRange(0, 9).Draw(t, "x")
				m.Put(uk, x)
				write(func(a addr) {
					if ref.maps[a] == nil {
						ref.maps[a] = map[string]int{}
					}
					ref.maps[a][uk] = x
				})
			},
			"mapRemove": func(t *rapid.T) {
				uk := userKeyGen.Draw(t, "uk")
				m.Remove(uk)
				write(func(a addr) {
					delete(ref.maps[a], uk)
					if len(ref.maps[a]) == 0 {
						delete(ref.maps, a)
					}
				})
			},
			"mapPutAll": func(t *rapid.T) {
				uks := rapid.SliceOfN(userKeyGen, 0, 10).Draw(t, "uks")
				x := rapid.IntRange(0, 9).Draw(t, "x")
				if len(uks) == 0 {
					return
				}
				for _, uk := range uks {
					m.Put(uk, x)
				}
				write(func(a addr) {
					for _, uk := range uks {
						if ref.maps[a] == nil {
							ref.maps[a] = map[string]int{}
						}
						ref.maps[a][uk] = x
					}
				})
			},
			"mapRangeRemove": func(t *rapid.T) {
				if !ref.valid {
					return
				}
				drop := rapid.SliceOfN(userKeyGen, 0, 4).Draw(t, "drop")
				checkRangeRemove(t, kind, m, ref.maps[ref.cur], drop)
				write(func(a addr) {
					for _, uk := range drop {
						delete(ref.maps[a], uk)
					}
					if len(ref.maps[a]) == 0 {
						delete(ref.maps, a)
					}
				})
			},
			"mapClear": func(t *rapid.T) {
				m.Clear()
				write(func(a addr) { delete(ref.maps, a) })
			},
			"sumAdd": func(t *rapid.T) {
				x := rapid.IntRange(0, 9).Draw(t, "x")
				err := r.Add(x)
				if ref.valid != (err == nil) {
					t.Fatalf("ReducingState.Add = %v with valid key = %v", err, ref.valid)
				}
				write(func(a addr) { ref.sums[a] += x })
			},
			"sumClear": func(t *rapid.T) {
				r.Clear()
				write(func(a addr) { delete(ref.sums, a) })
			},
			"capture": func(t *rapid.T) {
				if len(captures) >= 3 {
					return
				}
				c, err := b.Capture(captureDir(t, base))
				if err != nil {
					t.Fatal(err)
				}
				captures = append(captures, captured{c, ref.clone()})
			},
			"": func(t *rapid.T) {
				if !errors.Is(b.Err(), wantErr) || (wantErr == nil) != (b.Err() == nil) {
					t.Fatalf("Err = %v, want %v", b.Err(), wantErr)
				}
				if ref.valid {
					checkCurrent(t, &ref, v, l, m, r)
					// The reads above record nothing with a valid key.
				}
				if scanEveryStep {
					checkScans(t, b, &ref, start, end)
				}
			},
			"scan": func(t *rapid.T) { checkScans(t, b, &ref, start, end) },
		})
		// Every capture still holds the state as it was when taken.
		for _, c := range captures {
			checkCapture(t, c.c, &c.ref, start, end)
			if err := c.c.Release(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// checkScans compares the entry count and the keys of every state and
// key group with the model.
func checkScans(t *rapid.T, b *KeyedBackend[string], ref *stateModel, start, end int) {
	want := len(ref.values) + len(ref.lists) + len(ref.maps) + len(ref.sums)
	if got := b.NumEntries(); got != want {
		t.Fatalf("NumEntries = %d, want %d", got, want)
	}
	for kg := start; kg <= end; kg++ {
		checkKeys(t, b, "value", kg, slices.Collect(maps.Keys(ref.values)))
		checkKeys(t, b, "list", kg, slices.Collect(maps.Keys(ref.lists)))
		checkKeys(t, b, "map", kg, slices.Collect(maps.Keys(ref.maps)))
		checkKeys(t, b, "sum", kg, slices.Collect(maps.Keys(ref.sums)))
	}
}

func checkCurrent(t *rapid.T, ref *stateModel, v *ValueState[string, int], l *ListState[string, int],
	m *MapState[string, string, int], r *ReducingState[string, int]) {
	a := ref.cur
	if got, ok := v.Value(); got != ref.values[a] || ok != hasKey(ref.values, a) {
		t.Fatalf("%v: Value = %d, %v, want %d", a, got, ok, ref.values[a])
	}
	if got := l.Get(); !slices.Equal(got, ref.lists[a]) {
		t.Fatalf("%v: list Get = %v, want %v", a, got, ref.lists[a])
	}
	if got := maps.Collect(m.All()); !maps.Equal(got, ref.maps[a]) {
		t.Fatalf("%v: map All = %v, want %v", a, got, ref.maps[a])
	}
	if got := slices.Collect(m.Keys()); len(got) != len(ref.maps[a]) {
		t.Fatalf("%v: map Keys = %v, want the keys of %v once each", a, got, ref.maps[a])
	}
	if m.IsEmpty() != (len(ref.maps[a]) == 0) {
		t.Fatalf("%v: IsEmpty = %v", a, m.IsEmpty())
	}
	if got, ok := r.Get(); got != ref.sums[a] || ok != hasKey(ref.sums, a) {
		t.Fatalf("%v: sum Get = %d, %v, want %d", a, got, ok, ref.sums[a])
	}
}

// checkRangeRemove ranges over the current key's map, which the model
// says is want, and removes the user keys drop when the first entry is
// yielded. Every entry must be yielded at most once with its value, and
// every entry not dropped must be yielded. On the heap, as with a Go map,
// a dropped entry not reached yet must not be.
func checkRangeRemove(t *rapid.T, kind string, m *MapState[string, string, int], want map[string]int, drop []string) {
	got := map[string]int{}
	var first string
	for uk, uv := range m.All() {
		if _, dup := got[uk]; dup {
			t.Fatalf("All yielded %q twice", uk)
		}
		if len(got) == 0 {
			first = uk
			for _, d := range drop {
				m.Remove(d)
			}
		}
		got[uk] = uv
	}
	for uk, uv := range got {
		if w, ok := want[uk]; !ok || w != uv {
			t.Fatalf("All yielded %q: %d, want %v", uk, uv, want)
		}
	}
	for uk := range want {
		_, yielded := got[uk]
		dropped := slices.Contains(drop, uk)
		switch {
		case !dropped && !yielded:
			t.Fatalf("All removing %v did not yield %q of %v", drop, uk, want)
		case kind == "heap" && dropped && yielded && uk != first:
			t.Fatalf("All yielded %q, removed before it was reached (first %q)", uk, first)
		}
	}
}

func hasKey[V any](m map[addr]V, a addr) bool {
	_, ok := m[a]
	return ok
}

// checkKeys compares the backend's keys of one state and key group with the
// addresses the model holds in that key group.
func checkKeys(t *rapid.T, b *KeyedBackend[string], name string, kg int, addrs []addr) {
	var want []string
	for _, a := range addrs {
		if a.kg == kg {
			want = append(want, a.key)
		}
	}
	slices.Sort(want)
	if got := slices.Sorted(b.Keys(name, kg)); !slices.Equal(got, want) {
		t.Fatalf("Keys(%s, %d) = %v, want %v", name, kg, got, want)
	}
}

// TestApplyToAllKeysMatchesModel checks that ApplyToAllKeys visits exactly the
// keys holding the state, whatever fn clears along the way.
func TestApplyToAllKeysMatchesModel(t *testing.T) {
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) { checkApplyToAllKeys(t, kind) })
	}
}

func checkApplyToAllKeys(t *testing.T, kind string) {
	rapid.Check(t, func(t *rapid.T) {
		const groups = 4
		b := newTestBackend[string](t, kind, 0, groups-1)
		defer b.Close()
		v, _ := Value[string, int](b, "v")
		other, _ := Value[string, int](b, "other")
		n := rapid.IntRange(0, 50).Draw(t, "n")
		for i := range n {
			k := fmt.Sprint("k", i)
			b.SetCurrentKey(k, keyGroupOf(k, groups))
			v.Update(i)
			if i%3 == 0 {
				other.Update(i)
			}
		}
		clearSelf := rapid.Bool().Draw(t, "clearSelf")
		var visited []string
		err := b.ApplyToAllKeys("v", func(k string) error {
			visited = append(visited, k)
			if _, ok := v.Value(); !ok {
				t.Fatalf("visited %s without state", k)
			}
			other.Clear()
			if clearSelf {
				v.Clear()
			}
			return nil
		})
		if err != nil || b.Err() != nil {
			t.Fatalf("err = %v, Err = %v", err, b.Err())
		}
		if len(visited) != n {
			t.Fatalf("visited %d keys, want %d", len(visited), n)
		}
		want := n
		if clearSelf {
			want = 0
		}
		if b.NumEntries() != want {
			t.Fatalf("NumEntries = %d, want %d", b.NumEntries(), want)
		}
	})
}

func (m *stateModel) clone() stateModel {
	c := stateModel{values: maps.Clone(m.values), lists: map[addr][]int{}, maps: map[addr]map[string]int{}, sums: maps.Clone(m.sums)}
	for a, l := range m.lists {
		c.lists[a] = slices.Clone(l)
	}
	for a, mm := range m.maps {
		c.maps[a] = maps.Clone(mm)
	}
	return c
}

func captureDir(t *rapid.T, base string) string {
	dir, err := os.MkdirTemp(base, "capture-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(dir); err != nil { // Pebble creates it
		t.Fatal(err)
	}
	return dir
}

// checkCapture restores the sections of c into a fresh heap backend and
// compares every entry with ref, the model when c was taken.
func checkCapture(t *rapid.T, c *Capture[string], ref *stateModel, start, end int) {
	b := NewKeyedBackend[string](start, end)
	for kg := start; kg <= end; kg++ {
		sec, err := c.Section(nil, kg)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.RestoreKeyGroup(kg, sec); err != nil {
			t.Fatal(err)
		}
	}
	v, _ := Value[string, int](b, "value")
	l, _ := List[string, int](b, "list")
	m, _ := Map[string, string, int](b, "map")
	r, _ := Reducing(b, "sum", func(a, b int) (int, error) { return a + b, nil })
	want := len(ref.values) + len(ref.lists) + len(ref.maps) + len(ref.sums)
	if got := b.NumEntries(); got != want {
		t.Fatalf("capture has %d entries, want %d", got, want)
	}
	for kg := start; kg <= end; kg++ {
		for _, k := range []string{"a", "b", "c", "d", "e"} {
			b.SetCurrentKey(k, kg)
			cur := *ref
			cur.cur, cur.valid = addr{k, kg}, true
			checkCurrent(t, &cur, v, l, m, r)
		}
	}
}
