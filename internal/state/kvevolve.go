package state

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble"
	"github.com/weir-engine/weir/internal/codec"
)

// State schema evolution in Pebble. A checkpoint of a Pebble backend is
// the database's own files, so the schema of each state's values travels
// in the same files as the values, as one more entry per key group:
//
//	key    2 bytes key group, uvarint len, schemaPrefix+name (no key bytes)
//	value  the codec schema of the state's value type (see evolve.go)
//
// Being inside the key group's span, it moves with the entries it
// describes wherever they go: into a capture (full or incremental), a
// local recovery copy, the clipped and ingested databases of a rescale,
// and a savepoint's section of that key group (Capture.Section writes it
// as the section's schema entry). A key group that came from a database of
// another old subtask keeps that subtask's schema.
//
// Registering a state on a Pebble backend (migrateKV) reads the schema of
// each key group the backend owns and migrates eagerly, as Flink's RocksDB
// backend does at registration: the entries of a key group written under
// another schema are rewritten with the savepoint path's transcoder, and
// the key group's schema entry becomes the current one. Eager rather than
// on each read, because then the database holds one layout per state: the
// read path stays one decode with no schema check, later checkpoints,
// savepoints and rescales never meet two layouts of one state, and a
// changed field type fails the restore at once rather than at the first
// read of an old key, perhaps hours later. It costs one pass over the
// state's entries when (and only when) its type changed; the rewritten
// entries go into new SST files, which the next incremental checkpoint
// uploads.
//
// A key group without a schema entry is from a database written before
// schemas were recorded (or has no entries of the state): its values are
// read as the current type, positionally, as they always were.

// schemaKey appends the Pebble key of state name's schema entry in key
// group kg.
func schemaKey(dst []byte, kg int, name string) []byte {
	return statePrefix(dst, kg, schemaPrefix+name)
}

// migrateKV brings the entries of state name in the Pebble store to the
// value type of its table t and records t's schema in every key group the
// backend owns (see above). Every key group's old schema is checked before
// anything is written, so a refused change leaves the database as it was.
func (b *KeyedBackend[K]) migrateKV(name string, t registered[K]) error {
	cur, err := codec.Schema(t.valueType())
	if err != nil {
		// A type without a codec has a brokenTable, whose creation
		// recorded the error; it holds nothing to migrate.
		return nil
	}
	if err := b.kv.invalidate(); err != nil {
		return err
	}
	db := b.kv.db
	type change struct {
		kg int
		x  *codec.Transcoder // nil: only record the schema
	}
	var changes []change
	for kg := b.start; kg <= b.end; kg++ {
		old, closer, err := db.Get(schemaKey(nil, kg, name))
		switch {
		case errors.Is(err, pebble.ErrNotFound):
			changes = append(changes, change{kg: kg})
			continue
		case err != nil:
			return fmt.Errorf("state: read the schema of %q in key group %d: %w", name, kg, err)
		}
		same := bytes.Equal(old, cur)
		var x *codec.Transcoder
		if !same {
			x, err = b.transcoder(name, t, slices.Clone(old))
		}
		_ = closer.Close()
		if err != nil {
			return err
		}
		if !same {
			changes = append(changes, change{kg: kg, x: x})
		}
	}
	w := &batchWriter{db: db}
	defer w.close()
	for _, c := range changes {
		if c.x != nil {
			err := scanPrefix(db, statePrefix(nil, c.kg, name), func(k, v []byte) error {
				nv, n, err := c.x.Transcode(nil, v)
				if err != nil {
					return fmt.Errorf("%w: value: %v", ErrCorruptSnapshot, err)
				}
				if n != len(v) {
					return fmt.Errorf("%w: value: %d trailing bytes", ErrCorruptSnapshot, len(v)-n)
				}
				return w.set(k, nv)
			})
			if err != nil {
				return fmt.Errorf("state: migrate %q in key group %d: %w", name, c.kg, err)
			}
		}
		if err := w.set(schemaKey(nil, c.kg, name), cur); err != nil {
			return fmt.Errorf("state: migrate %q: %w", name, err)
		}
	}
	if err := w.commit(); err != nil {
		return fmt.Errorf("state: migrate %q: %w", name, err)
	}
	return nil
}

// batchWriter writes to db in batches of a few MB.
type batchWriter struct {
	db    *pebble.DB
	batch *pebble.Batch
}

func (w *batchWriter) set(k, v []byte) error {
	if w.batch == nil {
		w.batch = w.db.NewBatch()
	}
	if err := w.batch.Set(k, v, nil); err != nil {
		return err
	}
	if w.batch.Len() >= 4<<20 {
		return w.commit()
	}
	return nil
}

func (w *batchWriter) commit() error {
	if w.batch == nil {
		return nil
	}
	err := w.batch.Commit(pebble.NoSync)
	w.close()
	return err
}

func (w *batchWriter) close() {
	if w.batch != nil {
		_ = w.batch.Close()
		w.batch = nil
	}
}
