package state

import "github.com/cockroachdb/pebble"

// LiveKeyGroups counts the live Pebble entries of a Pebble backend by key
// group, read from the database itself (not through the backend's range
// checks), after writing its cache back.
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
		kg, _, _, err := splitKey(it.Key())
		if err != nil {
			return nil, err
		}
		out[kg]++
	}
	return out, it.Close()
}
