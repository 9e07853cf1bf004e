package state

// ReducingState holds one value per key, the reduction of all values added
// for that key. Register it with [Reducing].
type ReducingState[K comparable, V any] struct {
	b      *KeyedBackend[K]
	t      table[K, V]
	reduce func(a, b V) (V, error)
}

// Get returns the current key's reduced value and whether it has one.
func (s *ReducingState[K, V]) Get() (V, bool) {
	g := s.b.current()
	if g < 0 {
		var zero V
		return zero, false
	}
	return s.t.lookup(g, s.b.key)
}

// Add folds v into the current key's value: the first value is stored as is,
// later ones as reduce(stored, v). An error from reduce is returned as is and
// leaves the state unchanged. Without a valid current key it returns
// ErrNoCurrentKey (which is also recorded).
func (s *ReducingState[K, V]) Add(v V) error {
	g := s.b.current()
	if g < 0 {
		return ErrNoCurrentKey
	}
	if old, ok := s.t.lookup(g, s.b.key); ok {
		var err error
		if v, err = s.reduce(old, v); err != nil {
			return err
		}
	}
	s.t.store(g, s.b.key, v)
	return nil
}

// Clear removes the current key's value.
func (s *ReducingState[K, V]) Clear() {
	if g := s.b.current(); g >= 0 {
		s.t.remove(g, s.b.key)
	}
}
