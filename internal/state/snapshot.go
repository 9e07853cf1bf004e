package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/codec"
)

// Snapshots are written and restored one key group at a time, so that a
// restore at another parallelism picks the key groups it owns out of the
// snapshots of any number of old subtasks.
//
// A key group section is:
//
//	uvarint  number of states
//	per state, sorted by name:
//	  uvarint len(name), name
//	  uvarint len(payload), payload
//	payload: uvarint number of entries, then per entry the codec encoding of
//	the key followed by the codec encoding of its state value (V, []V or
//	map[UK]UV).
//
// A restored state that no operator registers (yet) is kept as its raw
// payload and written again by the next snapshot, so state is never dropped
// silently; it is decoded when the state is registered.

// ErrCorruptSnapshot reports a key group section that cannot be decoded.
var ErrCorruptSnapshot = errors.New("state: corrupt snapshot")

// SnapshotKeyGroup appends the section of key group kg to dst, read from
// the live backend. Checkpoints use [KeyedBackend.Capture] instead, which
// writes the same bytes off the owner's goroutine.
func (b *KeyedBackend[K]) SnapshotKeyGroup(dst []byte, kg int) ([]byte, error) {
	if kg < b.start || kg > b.end {
		return dst, fmt.Errorf("%w: key group %d not in [%d, %d]", ErrKeyGroupOutOfRange, kg, b.start, b.end)
	}
	kc, err := codec.For[K]()
	if err != nil {
		return dst, fmt.Errorf("state: snapshot keys: %w", err)
	}
	tables := make(map[string]registered[K], len(b.states))
	for name, e := range b.states {
		tables[name] = e.table
	}
	schemas, err := b.schemasOf()
	if err != nil {
		return dst, err
	}
	return appendSection(dst, tables, schemas, b.pending, kg-b.start, kc)
}

// appendSection appends the section of local key group g made of tables
// and the pending payloads of states not among them.
func appendSection[K comparable](dst []byte, tables map[string]registered[K], schemas map[string][]byte, pending map[string][][]byte, g int, kc codec.Codec[K]) ([]byte, error) {
	payloads := make(map[string][]byte, len(tables))
	for name, t := range tables {
		p, err := t.snapshotGroup(nil, g, kc)
		if err != nil {
			return dst, fmt.Errorf("state: snapshot %q: %w", name, err)
		}
		if len(p) == 1 && p[0] == 0 {
			continue // no entries in this key group
		}
		payloads[name] = p
	}
	return appendPayloads(dst, payloads, schemas, pending, g), nil
}

// RestoreKeyGroup reads a section written by SnapshotKeyGroup for key group
// kg, which must be owned by this backend. States registered already are
// filled at once; the others when they are registered.
func (b *KeyedBackend[K]) RestoreKeyGroup(kg int, section []byte) error {
	if kg < b.start || kg > b.end {
		return fmt.Errorf("%w: restore key group %d not in [%d, %d]", ErrKeyGroupOutOfRange, kg, b.start, b.end)
	}
	g := kg - b.start
	n, rest, err := uvarint(section)
	if err != nil {
		return err
	}
	type stateEntry struct{ name, payload []byte }
	var entries []stateEntry
	schemas := map[string][]byte{}
	for i := uint64(0); i < n; i++ {
		var name, payload []byte
		if name, rest, err = chunk(rest); err != nil {
			return err
		}
		if payload, rest, err = chunk(rest); err != nil {
			return err
		}
		if state, ok := isSchemaEntry(string(name)); ok {
			schemas[state] = payload
			continue
		}
		entries = append(entries, stateEntry{name, payload})
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: %d bytes after the last state of key group %d", ErrCorruptSnapshot, len(rest), kg)
	}
	for _, en := range entries {
		name, schema := string(en.name), schemas[string(en.name)]
		if e, ok := b.states[name]; ok {
			if err := b.restoreInto(e.table, name, g, en.payload, schema); err != nil {
				return err
			}
			continue
		}
		if b.pending == nil {
			b.pending = make(map[string][][]byte)
		}
		groups := b.pending[name]
		if groups == nil {
			groups = make([][]byte, b.numGroups())
			b.pending[name] = groups
		}
		groups[g] = slices.Clone(en.payload)
		if schema != nil {
			if prev, ok := b.pendingSchemas[name]; ok && string(prev) != string(schema) {
				return fmt.Errorf("%w: state %q restored with two schemas", ErrCorruptSnapshot, name)
			}
			if b.pendingSchemas == nil {
				b.pendingSchemas = map[string][]byte{}
			}
			b.pendingSchemas[name] = slices.Clone(schema)
		}
	}
	return nil
}

// restoreInto restores a payload written under schema (nil for a section
// of format 1) into table t of state name.
func (b *KeyedBackend[K]) restoreInto(t registered[K], name string, g int, payload, schema []byte) error {
	kc, err := codec.For[K]()
	if err != nil {
		return fmt.Errorf("state: restore keys: %w", err)
	}
	if schema != nil {
		x, err := b.transcoder(name, t, schema)
		if err != nil {
			return err
		}
		if x != nil {
			if payload, err = transcodePayload(payload, kc, x); err != nil {
				return fmt.Errorf("state: restore %q in key group %d: %w", name, g+b.start, err)
			}
		}
	}
	if err := t.restoreGroup(g, payload, kc); err != nil {
		return fmt.Errorf("state: restore %q in key group %d: %w", name, g+b.start, err)
	}
	return nil
}

// adoptPending fills a newly registered state from restored payloads.
func (b *KeyedBackend[K]) adoptPending(name string, t registered[K]) error {
	groups, ok := b.pending[name]
	if !ok {
		return nil
	}
	schema := b.pendingSchemas[name]
	delete(b.pending, name)
	delete(b.pendingSchemas, name)
	for g, payload := range groups {
		if len(payload) > 0 {
			if err := b.restoreInto(t, name, g, payload, schema); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *heapTable[K, S]) snapshotGroup(dst []byte, g int, kc codec.Codec[K]) ([]byte, error) {
	sc, err := codec.For[S]()
	if err != nil {
		return dst, err
	}
	m := t.groups[g]
	dst = binary.AppendUvarint(dst, uint64(len(m)))
	for k, s := range m {
		dst = kc.Append(dst, k)
		dst = sc.Append(dst, s)
	}
	return dst, nil
}

func (t *heapTable[K, S]) restoreGroup(g int, payload []byte, kc codec.Codec[K]) error {
	return decodeEntries(payload, kc, func(k K, s S) { t.store(g, k, s) })
}

// decodeEntries reads a key group's payload as snapshotGroup writes it (a
// count, then each key and value) and hands each entry to store.
func decodeEntries[K, V any](payload []byte, kc codec.Codec[K], store func(K, V)) error {
	vc, err := codec.For[V]()
	if err != nil {
		return err
	}
	n, rest, err := uvarint(payload)
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		k, m, err := kc.Decode(rest)
		if err != nil {
			return fmt.Errorf("%w: key: %v", ErrCorruptSnapshot, err)
		}
		rest = rest[m:]
		v, m, err := vc.Decode(rest)
		if err != nil {
			return fmt.Errorf("%w: value: %v", ErrCorruptSnapshot, err)
		}
		rest = rest[m:]
		store(k, v)
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrCorruptSnapshot, len(rest))
	}
	return nil
}

func uvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, nil, fmt.Errorf("%w: bad length", ErrCorruptSnapshot)
	}
	return v, b[n:], nil
}

func chunk(b []byte) ([]byte, []byte, error) {
	n, rest, err := uvarint(b)
	if err != nil {
		return nil, nil, err
	}
	if n > uint64(len(rest)) {
		return nil, nil, fmt.Errorf("%w: length %d beyond the %d bytes left", ErrCorruptSnapshot, n, len(rest))
	}
	return rest[:n], rest[n:], nil
}
