package state

import "github.com/cockroachdb/pebble"

// LinkDir is linkDir for the external tests.
var LinkDir = linkDir

// LiveKeyGroups counts the live Pebble entries of a Pebble backend by key
// group, read from the database itself (not through the backend's range
// checks), after writing its cache back. Schema entries do not count.
func LiveKeyGroups[K comparable](b *KeyedBackend[K]) (map[int]int, error) {
	if err := b.kv.writeBack(); err != nil {
		return nil, err
	}
	it, err := b.kv.db.NewIter(&pebble.IterOptions{})
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	for it.First(); it.Valid(); it.Next() {
		kg, name, _, err := splitKey(it.Key())
		if err != nil {
			return nil, err
		}
		if _, ok := isSchemaEntry(name); !ok {
			out[kg]++
		}
	}
	return out, it.Close()
}
