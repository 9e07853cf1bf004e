package state

import "slices"

// ListState holds a list of values of type V per key. Register it with
// [List]. A key whose list becomes empty has no state.
type ListState[K comparable, V any] struct {
	b *KeyedBackend[K]
	t table[K, []V]
}

// Get returns the current key's list, or nil if it has none.
//
// The slice is a read-only view of the stored list, valid until the next
// write to this key's list; it is not copied. Its capacity equals its
// length, so appending to it copies instead of writing into the state.
func (s *ListState[K, V]) Get() []V {
	g := s.b.current()
	if g < 0 {
		return nil
	}
	l, _ := s.t.lookup(g, s.b.key)
	return l[:len(l):len(l)]
}

// Add appends v to the current key's list.
func (s *ListState[K, V]) Add(v V) {
	if g := s.b.current(); g >= 0 {
		l, _ := s.t.lookup(g, s.b.key)
		s.t.store(g, s.b.key, append(l, v))
	}
}

// AddAll appends vs to the current key's list. The state does not keep a
// reference to vs.
func (s *ListState[K, V]) AddAll(vs []V) {
	g := s.b.current()
	if g < 0 || len(vs) == 0 {
		return
	}
	l, _ := s.t.lookup(g, s.b.key)
	// A nil l makes append copy vs into a new array.
	s.t.store(g, s.b.key, append(l, vs...))
}

// Update replaces the current key's list with a copy of vs. An empty vs
// clears the state, as in Flink.
func (s *ListState[K, V]) Update(vs []V) {
	g := s.b.current()
	if g < 0 {
		return
	}
	if len(vs) == 0 {
		s.t.remove(g, s.b.key)
		return
	}
	s.t.store(g, s.b.key, slices.Clone(vs))
}

// Clear removes the current key's list.
func (s *ListState[K, V]) Clear() {
	if g := s.b.current(); g >= 0 {
		s.t.remove(g, s.b.key)
	}
}
