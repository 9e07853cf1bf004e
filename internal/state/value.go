package state

// ValueState holds one value of type V per key. Register it with [Value].
type ValueState[K comparable, V any] struct {
	b *KeyedBackend[K]
	t table[K, V]
	// cells is t when it is a cellTable (heap, no TTL): the accessors use
	// its current-key cell, so that Value then Update is one map lookup.
	cells *cellTable[K, V]
}

// Value returns the current key's value and whether it has one.
func (s *ValueState[K, V]) Value() (V, bool) {
	g := s.b.current()
	if g < 0 {
		var zero V
		return zero, false
	}
	if s.cells != nil {
		return s.cells.value(g)
	}
	return s.t.lookup(g, s.b.key)
}

// Update sets the current key's value.
func (s *ValueState[K, V]) Update(v V) {
	if g := s.b.current(); g >= 0 {
		if s.cells != nil {
			s.cells.update(g, v)
			return
		}
		s.t.store(g, s.b.key, v)
	}
}

// Clear removes the current key's value.
func (s *ValueState[K, V]) Clear() {
	if g := s.b.current(); g >= 0 {
		s.t.remove(g, s.b.key)
	}
}
