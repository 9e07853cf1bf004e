package state

// AggregatingState holds one accumulator of type ACC per key, folds inputs of
// type IN into it and reads out results of type OUT. Register it with
// [Aggregating].
type AggregatingState[K comparable, IN, ACC, OUT any] struct {
	b      *KeyedBackend[K]
	t      table[K, ACC]
	add    func(acc ACC, in IN) (ACC, error)
	newAcc func() ACC
	result func(ACC) (OUT, error)
}

// Get returns the result for the current key's accumulator, and false if the
// key has none. An error from result is returned as is with zero results.
func (s *AggregatingState[K, IN, ACC, OUT]) Get() (OUT, bool, error) {
	var zero OUT
	g := s.b.current()
	if g < 0 {
		return zero, false, ErrNoCurrentKey
	}
	acc, ok := s.t.lookup(g, s.b.key)
	if !ok {
		return zero, false, nil
	}
	out, err := s.result(acc)
	if err != nil {
		return zero, false, err
	}
	return out, true, nil
}

// Add folds in into the current key's accumulator, creating it with newAcc
// first if the key has none. An error from add is returned as is and the
// returned accumulator is not stored (an ACC that add mutates in place may
// still have changed). Without a valid current key it returns ErrNoCurrentKey
// (which is also recorded).
func (s *AggregatingState[K, IN, ACC, OUT]) Add(in IN) error {
	g := s.b.current()
	if g < 0 {
		return ErrNoCurrentKey
	}
	acc, ok := s.t.lookup(g, s.b.key)
	if !ok {
		acc = s.newAcc()
	}
	acc, err := s.add(acc, in)
	if err != nil {
		return err
	}
	s.t.store(g, s.b.key, acc)
	return nil
}

// Clear removes the current key's accumulator.
func (s *AggregatingState[K, IN, ACC, OUT]) Clear() {
	if g := s.b.current(); g >= 0 {
		s.t.remove(g, s.b.key)
	}
}
