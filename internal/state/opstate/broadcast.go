package opstate

import (
	"bytes"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
)

// MapState is broadcast state: a map that every subtask of a broadcast
// operator keeps, changed identically on each by the broadcast input, so
// that a restore gives every new subtask one copy of it, whatever the
// parallelism (Flink's BroadcastState).
type MapState[K comparable, V any] struct {
	m map[K]V
}

// Map returns the broadcast map state called name with the entries
// restored to this subtask. Each entry is encoded as its key followed by
// its value.
func Map[K comparable, V any](s *Store, name string) (*MapState[K, V], error) {
	kc, err := codec.For[K]()
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrState, name, err)
	}
	vc, err := codec.For[V]()
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrState, name, err)
	}
	return register(s, name, op.BroadcastList, func(entries [][]byte) (*MapState[K, V], func() ([][]byte, error), error) {
		st := &MapState[K, V]{m: make(map[K]V, len(entries))}
		for i, e := range entries {
			k, n, err := kc.Decode(e)
			if err != nil {
				return nil, nil, fmt.Errorf("entry %d key: %w", i, err)
			}
			v, m, err := vc.Decode(e[n:])
			if err != nil {
				return nil, nil, fmt.Errorf("entry %d value: %w", i, err)
			}
			if n+m != len(e) {
				return nil, nil, fmt.Errorf("entry %d: %d bytes after the value: %w", i, len(e)-n-m, codec.ErrCorrupt)
			}
			st.m[k] = v
		}
		encode := func() ([][]byte, error) {
			out := make([][]byte, 0, len(st.m))
			for k, v := range st.m {
				out = append(out, vc.Append(kc.Append(nil, k), v))
			}
			// Sorted bytes make every subtask's copy identical, entry by
			// entry, whatever the map's iteration order.
			slices.SortFunc(out, bytes.Compare)
			return out, nil
		}
		return st, encode, nil
	})
}

// Get returns the value of k and whether there is one.
func (s *MapState[K, V]) Get(k K) (V, bool) {
	v, ok := s.m[k]
	return v, ok
}

// Contains says whether k has a value.
func (s *MapState[K, V]) Contains(k K) bool {
	_, ok := s.m[k]
	return ok
}

// Put sets the value of k.
func (s *MapState[K, V]) Put(k K, v V) { s.m[k] = v }

// Remove removes k.
func (s *MapState[K, V]) Remove(k K) { delete(s.m, k) }

// Clear removes every entry.
func (s *MapState[K, V]) Clear() { clear(s.m) }

// Len returns the number of entries.
func (s *MapState[K, V]) Len() int { return len(s.m) }

// All iterates over the entries in no particular order.
func (s *MapState[K, V]) All() iter.Seq2[K, V] { return maps.All(s.m) }

// BroadcastStates is the broadcast state of one operator subtask: the map
// states declared on its broadcast input, and no others.
type BroadcastStates struct {
	store    *Store
	declared []string
}

// NewBroadcastStates returns the broadcast states declared, restored from
// restored (nil for a fresh start).
func NewBroadcastStates(restored *op.Restored, declared []string) *BroadcastStates {
	return &BroadcastStates{store: NewStore(restored), declared: declared}
}

// BroadcastMap returns the declared broadcast map state called name.
func BroadcastMap[K comparable, V any](s *BroadcastStates, name string) (*MapState[K, V], error) {
	if !slices.Contains(s.declared, name) {
		return nil, fmt.Errorf("%w: broadcast state %q was not declared on the broadcast stream (declared: %q)", ErrState, name, s.declared)
	}
	return Map[K, V](s.store, name)
}

// Snapshot returns the states' snapshot.
func (s *BroadcastStates) Snapshot() ([]op.NamedList, error) { return s.store.Snapshot() }
