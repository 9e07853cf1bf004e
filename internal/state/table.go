package state

import (
	"iter"

	"github.com/weir-engine/weir/internal/codec"
)

// table stores the entries of one state: one Go map per local key group,
// indexed by keyGroup - keyGroupStart. S is what a key maps to: the value of a
// ValueState, the slice of a ListState, the inner map of a MapState, and so on.
//
// The maps are allocated on the first write to their key group, so a backend
// that owns many key groups but sees few keys stays small. An entry exists
// only while its key has state: every state deletes the entry when the key's
// state becomes empty.
type table[K comparable, S any] struct {
	groups []map[K]S
}

func newTable[K comparable, S any](numGroups int) table[K, S] {
	return table[K, S]{groups: make([]map[K]S, numGroups)}
}

// lookup returns the entry of k in local key group g. A nil map reads as
// empty, so no allocation happens on reads.
func (t *table[K, S]) lookup(g int, k K) (S, bool) {
	s, ok := t.groups[g][k]
	return s, ok
}

// store sets the entry of k in local key group g.
func (t *table[K, S]) store(g int, k K, s S) {
	m := t.groups[g]
	if m == nil {
		m = make(map[K]S)
		t.groups[g] = m
	}
	m[k] = s
}

// remove deletes the entry of k in local key group g. The group's map is
// kept, even when empty, because keys of a key group typically come and go
// (a window's state is cleared and the next window's is written).
func (t *table[K, S]) remove(g int, k K) {
	delete(t.groups[g], k)
}

// The methods below implement registered: what the backend needs to know
// about a state without knowing its value type.

func (t *table[K, S]) numEntries() int {
	n := 0
	for _, m := range t.groups {
		n += len(m)
	}
	return n
}

func (t *table[K, S]) contains(g int, k K) bool {
	_, ok := t.groups[g][k]
	return ok
}

func (t *table[K, S]) appendKeys(g int, dst []K) []K {
	for k := range t.groups[g] {
		dst = append(dst, k)
	}
	return dst
}

func (t *table[K, S]) keys(g int) iter.Seq[K] {
	return func(yield func(K) bool) {
		for k := range t.groups[g] {
			if !yield(k) {
				return
			}
		}
	}
}

// registered is the type-erased view of a state's table that the backend
// keeps in its registry; every *table implements it.
type registered[K comparable] interface {
	snapshotGroup(dst []byte, g int, kc codec.Codec[K]) ([]byte, error)
	restoreGroup(g int, payload []byte, kc codec.Codec[K]) error
	numEntries() int
	contains(g int, k K) bool
	appendKeys(g int, dst []K) []K
	keys(g int) iter.Seq[K]
}

// entry is one registered state: the typed state handed to the operator
// (compared by type on re-registration) and its table.
type entry[K comparable] struct {
	state any
	table registered[K]
}
