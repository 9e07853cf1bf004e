package state

import (
	"iter"
	"reflect"

	"github.com/weir-engine/weir/internal/codec"
)

// table stores the entries of one state per local key group (indexed by
// keyGroup - keyGroupStart). S is what a key maps to: the value of a
// ValueState, the slice of a ListState, the inner map of a MapState, and so
// on. The heap backend keeps them in Go maps (heapTable), the Pebble
// backend in an LSM tree (kvTable).
//
// Every state writes through store or remove after changing what a key
// maps to, even when it changed a value it got from lookup in place (a
// MapState's inner map): the Pebble table needs it to write the new bytes.
// ValueState and MapState on the heap without TTL use tables of their own
// (cellTable, mapCellTable) that change a key's cell in place.
type table[K comparable, S any] interface {
	// lookup returns the entry of k in local key group g.
	lookup(g int, k K) (S, bool)
	// lookupForWrite is lookup for a caller that will change the entry in
	// place and then store it.
	lookupForWrite(g int, k K) (S, bool)
	// store sets the entry of k in local key group g.
	store(g int, k K, s S)
	// remove deletes the entry of k in local key group g.
	remove(g int, k K)
	registered[K]
}

// registered is the type-erased view of a state's table that the backend
// keeps in its registry; every table implements it.
type registered[K comparable] interface {
	// snapshotGroup appends the payload of local key group g (see
	// snapshot.go) to dst.
	snapshotGroup(dst []byte, g int, kc codec.Codec[K]) ([]byte, error)
	// restoreGroup adds the entries of a payload to local key group g.
	restoreGroup(g int, payload []byte, kc codec.Codec[K]) error
	numEntries() int
	// valueType is S, the type whose schema snapshots record.
	valueType() reflect.Type
	contains(g int, k K) bool
	// remove deletes the entry of k in local key group g.
	remove(g int, k K)
	appendKeys(g int, dst []K) []K
	keys(g int) iter.Seq[K]
	// capture returns a view of the table as it is now that stays
	// unchanged by later writes and may be read on another goroutine
	// (heap tables; nil for tables whose backend captures itself).
	capture() registered[K]
}

// entry is one registered state: the typed state handed to the operator
// (compared by type on re-registration) and its table.
type entry[K comparable] struct {
	state any
	table registered[K]
}

// newTable returns the table of a new state of backend b: on the heap, or
// in b's Pebble store.
func newTable[K comparable, S any](b *KeyedBackend[K], name string, deep func(S) S) table[K, S] {
	if b.kv != nil {
		return newKVTable[K, S](b, name)
	}
	return newHeapTable[K, S](b.numGroups(), deep)
}
