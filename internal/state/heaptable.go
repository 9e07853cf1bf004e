package state

import (
	"iter"
	"maps"
	"reflect"
	"slices"
)

// heapTable keeps one Go map per local key group.
//
// The maps are allocated on the first write to their key group, so a
// backend that owns many key groups but sees few keys stays small. An entry
// exists only while its key has state: every state deletes the entry when
// the key's state becomes empty.
//
// Snapshots are copy-on-write per key group: capture hands out the current
// maps and marks them shared; the first write to a shared group copies its
// map (with deep, for values that states change in place), so the captured
// maps never change again and a checkpoint serializes them on another
// goroutine while the task goes on.
type heapTable[K comparable, S any] struct {
	groups []map[K]S
	// shared[g] is set while a capture may hold groups[g].
	shared []bool
	// deep copies a value that a state changes in place (a MapState's
	// inner map); nil when values are never changed in place.
	deep func(S) S
}

func newHeapTable[K comparable, S any](numGroups int, deep func(S) S) *heapTable[K, S] {
	return &heapTable[K, S]{groups: make([]map[K]S, numGroups), shared: make([]bool, numGroups), deep: deep}
}

// lookup returns the entry of k in local key group g. A nil map reads as
// empty, so no allocation happens on reads.
func (t *heapTable[K, S]) lookup(g int, k K) (S, bool) {
	s, ok := t.groups[g][k]
	return s, ok
}

func (t *heapTable[K, S]) lookupForWrite(g int, k K) (S, bool) {
	t.own(g)
	return t.lookup(g, k)
}

// own makes group g's map private to the table again after a capture.
func (t *heapTable[K, S]) own(g int) {
	if !t.shared[g] {
		return
	}
	t.shared[g] = false
	m := maps.Clone(t.groups[g])
	if t.deep != nil {
		for k, s := range m {
			m[k] = t.deep(s)
		}
	}
	t.groups[g] = m
}

// store sets the entry of k in local key group g.
func (t *heapTable[K, S]) store(g int, k K, s S) {
	t.own(g)
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
func (t *heapTable[K, S]) remove(g int, k K) {
	if _, ok := t.groups[g][k]; !ok {
		return
	}
	t.own(g)
	delete(t.groups[g], k)
}

func (t *heapTable[K, S]) capture() registered[K] {
	for g, m := range t.groups {
		if m != nil {
			t.shared[g] = true
		}
	}
	// The copy is never written: it needs no shared flags of its own.
	return &heapTable[K, S]{groups: slices.Clone(t.groups)}
}

func (t *heapTable[K, S]) numEntries() int {
	n := 0
	for _, m := range t.groups {
		n += len(m)
	}
	return n
}

func (t *heapTable[K, S]) contains(g int, k K) bool {
	_, ok := t.groups[g][k]
	return ok
}

func (t *heapTable[K, S]) appendKeys(g int, dst []K) []K {
	for k := range t.groups[g] {
		dst = append(dst, k)
	}
	return dst
}

func (t *heapTable[K, S]) keys(g int) iter.Seq[K] {
	return func(yield func(K) bool) {
		for k := range t.groups[g] {
			if !yield(k) {
				return
			}
		}
	}
}

func (t *heapTable[K, S]) valueType() reflect.Type { return reflect.TypeFor[S]() }
