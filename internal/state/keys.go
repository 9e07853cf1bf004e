package state

import (
	"fmt"
	"iter"
)

// Keys returns the keys that have state name in keyGroup. The sequence is
// empty if the state is not registered or the key group is not owned by this
// backend. The order is unspecified (Go's map order).
//
// The sequence reads the live state: clearing the yielded key's state while
// ranging is allowed, but other writes to the state may or may not be seen
// by the ongoing iteration. Use ApplyToAllKeys to modify state per key.
func (b *KeyedBackend[K]) Keys(name string, keyGroup int) iter.Seq[K] {
	s, ok := b.states[name]
	if !ok || keyGroup < b.start || keyGroup > b.end {
		return func(func(K) bool) {}
	}
	return s.table.keys(keyGroup - b.start)
}

// ApplyToAllKeys calls fn once for every key that has state name, with that
// key set as the current key, as Flink's applyToAllKeys does. It visits the
// key groups in ascending order and, within a key group, the keys in an
// unspecified order.
//
// The keys of each key group are collected before fn is called for any of
// them, so fn may read, update or clear any state of the current key,
// including state name; a key whose state name was cleared before its turn
// is skipped. It stops at the first error from fn and returns it wrapped.
//
// The current key from before the call is restored when it returns.
func (b *KeyedBackend[K]) ApplyToAllKeys(name string, fn func(k K) error) error {
	e, ok := b.states[name]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownState, name)
	}
	prevKey, prevGroup, prevLocal := b.key, b.keyGroup, b.local
	defer func() { b.key, b.keyGroup, b.local, b.seq = prevKey, prevGroup, prevLocal, b.seq+1 }()

	var buf []K
	s := e.table
	for g := range b.numGroups() {
		buf = s.appendKeys(g, buf[:0])
		for _, k := range buf {
			if !s.contains(g, k) {
				continue
			}
			b.key, b.keyGroup, b.local, b.seq = k, b.start+g, g, b.seq+1
			if err := fn(k); err != nil {
				return fmt.Errorf("state: apply to all keys of %q: %w", name, err)
			}
		}
		clear(buf) // do not keep keys alive through the buffer
	}
	return nil
}
