package state

import "iter"

// MapState holds a map from UK to UV per key. Register it with [Map]. A key
// whose map becomes empty has no state.
type MapState[K comparable, UK comparable, UV any] struct {
	b *KeyedBackend[K]
	t table[K, map[UK]UV]
	// heap is t when it is a plain heap table, for the hot paths: there
	// the inner map is changed in place, so a write costs one lookup
	// (which also does the copy-on-write) and no store.
	heap *heapTable[K, map[UK]UV]
}

func newMapState[K comparable, UK comparable, UV any](b *KeyedBackend[K], t table[K, map[UK]UV]) *MapState[K, UK, UV] {
	s := &MapState[K, UK, UV]{b: b, t: t}
	s.heap, _ = t.(*heapTable[K, map[UK]UV])
	return s
}

// entries returns the current key's map, or nil.
func (s *MapState[K, UK, UV]) entries() map[UK]UV {
	g := s.b.current()
	if g < 0 {
		return nil
	}
	if s.heap != nil {
		return s.heap.groups[g][s.b.key]
	}
	m, _ := s.t.lookup(g, s.b.key)
	return m
}

// Get returns the value mapped to uk for the current key.
func (s *MapState[K, UK, UV]) Get(uk UK) (UV, bool) {
	uv, ok := s.entries()[uk]
	return uv, ok
}

// Contains reports whether the current key maps uk.
func (s *MapState[K, UK, UV]) Contains(uk UK) bool {
	_, ok := s.entries()[uk]
	return ok
}

// Put maps uk to uv for the current key.
func (s *MapState[K, UK, UV]) Put(uk UK, uv UV) {
	g := s.b.current()
	if g < 0 {
		return
	}
	if s.heap != nil {
		if m, _ := s.heap.lookupForWrite(g, s.b.key); m != nil {
			m[uk] = uv
			return
		}
		s.heap.store(g, s.b.key, map[UK]UV{uk: uv})
		return
	}
	m, _ := s.t.lookupForWrite(g, s.b.key)
	if m == nil {
		m = make(map[UK]UV)
	}
	m[uk] = uv
	s.t.store(g, s.b.key, m)
}

// Remove deletes uk from the current key's map. Removing the last entry
// removes the key's state.
func (s *MapState[K, UK, UV]) Remove(uk UK) {
	g := s.b.current()
	if g < 0 {
		return
	}
	m, ok := s.t.lookupForWrite(g, s.b.key)
	if !ok {
		return
	}
	if _, ok := m[uk]; !ok {
		return
	}
	delete(m, uk)
	switch {
	case len(m) == 0:
		s.t.remove(g, s.b.key)
	case s.heap == nil:
		s.t.store(g, s.b.key, m)
	}
}

// IsEmpty reports whether the current key maps nothing.
func (s *MapState[K, UK, UV]) IsEmpty() bool {
	return len(s.entries()) == 0
}

// Clear removes the current key's map.
func (s *MapState[K, UK, UV]) Clear() {
	if g := s.b.current(); g >= 0 {
		s.t.remove(g, s.b.key)
	}
}

// All returns the current key's entries in an unspecified order. The key is
// the one current when the sequence is ranged over, not when All is called.
// As with a Go map, Remove (of any entry) is allowed while ranging; entries
// Put while ranging may or may not be yielded.
func (s *MapState[K, UK, UV]) All() iter.Seq2[UK, UV] {
	return func(yield func(UK, UV) bool) {
		for uk, uv := range s.entries() {
			if !yield(uk, uv) {
				return
			}
		}
	}
}

// Keys returns the current key's user keys; see All for the rules.
func (s *MapState[K, UK, UV]) Keys() iter.Seq[UK] {
	return func(yield func(UK) bool) {
		for uk := range s.entries() {
			if !yield(uk) {
				return
			}
		}
	}
}
