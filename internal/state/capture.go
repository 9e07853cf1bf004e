package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"

	"github.com/cockroachdb/pebble"
	"github.com/weir-engine/weir/internal/codec"
)

// Capture is a backend's keyed state as it was at one checkpoint. The
// backend's owner takes it with [KeyedBackend.Capture] at the barrier,
// which is cheap; turning it into bytes and writing them happens later, on
// another goroutine, while the owner goes on changing the backend. A
// Capture is used by one goroutine at a time and must be Released.
//
// A heap backend's capture holds its key-group maps, which copy-on-write
// keeps unchanged. A Pebble backend's capture is a Pebble checkpoint of the
// database in a directory of its own: hard links to the immutable SST
// files, plus the MANIFEST and OPTIONS that describe them, which an
// incremental checkpoint uploads (see [Capture.Files]) and a savepoint
// reads back into sections.
type Capture[K comparable] struct {
	start, end int
	log        *slog.Logger
	// tables holds the captured tables of a heap backend by state name.
	tables map[string]registered[K]
	// pending holds restored payloads of states not registered, by name
	// and local key group.
	pending map[string][][]byte
	// schemas holds the schema of every state, registered or pending, by
	// name.
	schemas map[string][]byte
	// dir is the Pebble checkpoint of a Pebble backend ("" on the heap),
	// opened read-only as db on the first Section.
	dir string
	db  *pebble.DB
}

// Capture captures the backend's state (see [Capture]). A Pebble backend
// flushes its memtable and checkpoints into dir, which must not exist; a
// heap backend ignores dir.
func (b *KeyedBackend[K]) Capture(dir string) (*Capture[K], error) {
	for _, e := range b.states {
		if t, ok := e.table.(ttlCleaner); ok {
			t.beforeCapture()
		}
	}
	c := &Capture[K]{start: b.start, end: b.end, log: b.log, pending: make(map[string][][]byte, len(b.pending))}
	for name, groups := range b.pending {
		c.pending[name] = slices.Clone(groups)
	}
	schemas, err := b.schemasOf()
	if err != nil {
		return nil, err
	}
	c.schemas = schemas
	if b.kv != nil {
		// The capture must see every write made before it.
		if err := b.kv.writeBack(); err != nil {
			return nil, err
		}
		if err := b.kv.flush(); err != nil {
			return nil, err
		}
		if err := b.kv.db.Checkpoint(dir); err != nil {
			return nil, fmt.Errorf("state: pebble checkpoint into %s: %w", dir, err)
		}
		c.dir = dir
		return c, nil
	}
	c.tables = make(map[string]registered[K], len(b.states))
	for name, e := range b.states {
		c.tables[name] = e.table.capture()
	}
	return c, nil
}

// KeyGroupRange returns the first and last key group of the capture.
func (c *Capture[K]) KeyGroupRange() (start, end int) { return c.start, c.end }

// Dir returns the directory of a Pebble capture, or "" for a heap one.
func (c *Capture[K]) Dir() string { return c.dir }

// Files returns the names of the files in a Pebble capture's directory,
// sorted: SST files (named *.sst, immutable, shareable between
// checkpoints) and the files that describe them.
func (c *Capture[K]) Files() ([]string, error) {
	if c.dir == "" {
		return nil, nil
	}
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, fmt.Errorf("state: list pebble checkpoint: %w", err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// Section appends the section of key group kg (the format of
// [KeyedBackend.SnapshotKeyGroup]) with every state of the capture.
func (c *Capture[K]) Section(dst []byte, kg int) ([]byte, error) {
	if kg < c.start || kg > c.end {
		return dst, fmt.Errorf("%w: key group %d not in [%d, %d]", ErrKeyGroupOutOfRange, kg, c.start, c.end)
	}
	if c.dir == "" {
		kc, err := codec.For[K]()
		if err != nil {
			return dst, fmt.Errorf("state: snapshot keys: %w", err)
		}
		return appendSection(dst, c.tables, c.schemas, c.pending, kg-c.start, kc)
	}
	payloads, recorded, err := c.kvPayloads(kg)
	if err != nil {
		return dst, err
	}
	// The schemas the database records for its entries (see
	// kvevolve.go) win: a state restored in the files but not
	// registered since keeps its old layout and schema.
	schemas := make(map[string][]byte, len(c.schemas)+len(recorded))
	maps.Copy(schemas, c.schemas)
	maps.Copy(schemas, recorded)
	return appendPayloads(dst, payloads, schemas, c.pending, kg-c.start), nil
}

// PendingSection appends a section of key group kg with only the restored
// states that no operator registered: what a Pebble capture's files do not
// hold.
func (c *Capture[K]) PendingSection(dst []byte, kg int) []byte {
	return appendPayloads(dst, nil, c.schemas, c.pending, kg-c.start)
}

// kvPayloads reads the payload of every state in key group kg from the
// Pebble capture, and the schemas recorded for them: the entries' key and
// value bytes are already the codec encodings a payload is made of.
func (c *Capture[K]) kvPayloads(kg int) (payloads, schemas map[string][]byte, err error) {
	if c.db == nil {
		db, err := openPebble(c.dir, c.log, true, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("state: open pebble checkpoint %s: %w", c.dir, err)
		}
		c.db = db
	}
	bodies := map[string][]byte{}
	counts := map[string]uint64{}
	schemas = map[string][]byte{}
	err = scanPrefix(c.db, groupPrefix(nil, kg), func(k, v []byte) error {
		_, name, key, err := splitKey(k)
		if err != nil {
			return err
		}
		if state, ok := isSchemaEntry(name); ok {
			schemas[state] = slices.Clone(v)
			return nil
		}
		counts[name]++
		bodies[name] = append(append(bodies[name], key...), v...)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("state: read key group %d of pebble checkpoint: %w", kg, err)
	}
	payloads = make(map[string][]byte, len(bodies))
	for name, body := range bodies {
		payloads[name] = append(binary.AppendUvarint(nil, counts[name]), body...)
	}
	return payloads, schemas, nil
}

// Release frees the capture: a Pebble capture's directory is removed.
func (c *Capture[K]) Release() error {
	if c.dir == "" {
		return nil
	}
	var err error
	if c.db != nil {
		err = c.db.Close()
		c.db = nil
	}
	return errors.Join(err, os.RemoveAll(c.dir))
}

// appendPayloads appends a section made of ready payloads by state name
// and the pending payloads of local key group g that payloads lacks, with
// the schema entry (see evolve.go) of each state written that schemas has.
func appendPayloads(dst []byte, payloads map[string][]byte, schemas map[string][]byte, pending map[string][][]byte, g int) []byte {
	all := maps.Clone(payloads)
	if all == nil {
		all = map[string][]byte{}
	}
	for name, groups := range pending {
		if _, ok := all[name]; !ok && len(groups[g]) > 0 {
			all[name] = groups[g]
		}
	}
	for name := range maps.Clone(all) {
		if s, ok := schemas[name]; ok {
			all[schemaPrefix+name] = s
		}
	}
	names := slices.Sorted(maps.Keys(all))
	dst = binary.AppendUvarint(dst, uint64(len(names)))
	for _, name := range names {
		dst = binary.AppendUvarint(dst, uint64(len(name)))
		dst = append(dst, name...)
		dst = binary.AppendUvarint(dst, uint64(len(all[name])))
		dst = append(dst, all[name]...)
	}
	return dst
}
