package state

import "iter"

// MapState holds a map from UK to UV per key. Register it with [Map]. A key
// whose map becomes empty has no state.
type MapState[K comparable, UK comparable, UV any] struct {
	b *KeyedBackend[K]
	// cells is the table on the heap without TTL (see mapCellTable); t
	// is the table otherwise, nil with cells.
	cells *mapCellTable[K, UK, UV]
	t     table[K, map[UK]UV]
}

// entries returns the current key's map from a table other than cells, or
// nil.
func (s *MapState[K, UK, UV]) entries(g int) map[UK]UV {
	m, _ := s.t.lookup(g, s.b.key)
	return m
}

// Get returns the value mapped to uk for the current key.
func (s *MapState[K, UK, UV]) Get(uk UK) (UV, bool) {
	g := s.b.current()
	switch {
	case g < 0:
		var zero UV
		return zero, false
	case s.cells != nil:
		return s.cells.get(g, uk)
	}
	uv, ok := s.entries(g)[uk]
	return uv, ok
}

// Contains reports whether the current key maps uk.
func (s *MapState[K, UK, UV]) Contains(uk UK) bool {
	_, ok := s.Get(uk)
	return ok
}

// Put maps uk to uv for the current key.
func (s *MapState[K, UK, UV]) Put(uk UK, uv UV) {
	g := s.b.current()
	switch {
	case g < 0:
		return
	case s.cells != nil:
		s.cells.put(g, uk, uv)
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
	switch {
	case g < 0:
		return
	case s.cells != nil:
		s.cells.del(g, uk)
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
	if len(m) == 0 {
		s.t.remove(g, s.b.key)
		return
	}
	s.t.store(g, s.b.key, m)
}

// IsEmpty reports whether the current key maps nothing.
func (s *MapState[K, UK, UV]) IsEmpty() bool {
	g := s.b.current()
	switch {
	case g < 0:
		return true
	case s.cells != nil:
		return s.cells.size(g) == 0
	}
	return len(s.entries(g)) == 0
}

// Clear removes the current key's map.
func (s *MapState[K, UK, UV]) Clear() {
	g := s.b.current()
	switch {
	case g < 0:
	case s.cells != nil:
		s.cells.remove(g, s.b.key)
	default:
		s.t.remove(g, s.b.key)
	}
}

// All returns the current key's entries in an unspecified order. The key is
// the one current when the sequence is ranged over, not when All is called.
// As with a Go map, Remove (of any entry) is allowed while ranging; entries
// Put while ranging may or may not be yielded.
func (s *MapState[K, UK, UV]) All() iter.Seq2[UK, UV] {
	return func(yield func(UK, UV) bool) {
		g := s.b.current()
		switch {
		case g < 0:
			return
		case s.cells != nil:
			s.cells.all(g, yield)
			return
		}
		for uk, uv := range s.entries(g) {
			if !yield(uk, uv) {
				return
			}
		}
	}
}

// Keys returns the current key's user keys; see All for the rules.
func (s *MapState[K, UK, UV]) Keys() iter.Seq[UK] {
	return func(yield func(UK) bool) {
		for uk := range s.All() {
			if !yield(uk) {
				return
			}
		}
	}
}
