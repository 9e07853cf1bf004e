package state

import (
	"encoding/binary"
	"fmt"
	"iter"
	"reflect"

	"github.com/cockroachdb/pebble"
	"github.com/weir-engine/weir/internal/codec"
)

// kvTable keeps one state's entries in the backend's Pebble store (see
// kvStore for the key layout). Every access encodes or decodes: lookups
// return fresh values, so states may change them in place before storing
// them back. I/O errors are recorded in the backend (see KeyedBackend.Err).
type kvTable[K comparable, S any] struct {
	b    *KeyedBackend[K]
	name string
	kc   codec.Codec[K]
	sc   codec.Codec[S]
}

func newKVTable[K comparable, S any](b *KeyedBackend[K], name string) table[K, S] {
	kc, err := codec.For[K]()
	if err != nil {
		b.record(fmt.Errorf("state: pebble keys of %q: %w", name, err))
	}
	sc, err := codec.For[S]()
	if err != nil {
		b.record(fmt.Errorf("state: pebble values of %q: %w", name, err))
	}
	if kc == nil || sc == nil {
		return &brokenTable[K, S]{}
	}
	// The backend's goroutine is the table's only user, so the table may
	// encode and decode through slots of its own.
	return &kvTable[K, S]{b: b, name: name, kc: codec.NewSlot(kc), sc: codec.NewSlot(sc)}
}

// key builds the Pebble key of k in local key group g in the store's
// scratch buffer.
func (t *kvTable[K, S]) key(g int, k K) []byte {
	s := t.b.kv
	s.key = statePrefix(s.key[:0], g+t.b.start, t.name)
	s.key = t.kc.Append(s.key, k)
	return s.key
}

func (t *kvTable[K, S]) lookup(g int, k K) (S, bool) {
	var zero S
	v, ok, err := t.b.kv.get(t.key(g, k))
	if err != nil {
		t.b.record(fmt.Errorf("state: read %q: %w", t.name, err))
		return zero, false
	}
	if !ok {
		return zero, false
	}
	s, _, err := t.sc.Decode(v)
	if err != nil {
		t.b.record(fmt.Errorf("state: decode %q: %w", t.name, err))
		return zero, false
	}
	return s, true
}

func (t *kvTable[K, S]) lookupForWrite(g int, k K) (S, bool) { return t.lookup(g, k) }

func (t *kvTable[K, S]) store(g int, k K, s S) {
	st := t.b.kv
	if err := st.bg.get(); err != nil {
		t.b.record(err)
		return
	}
	st.val = t.sc.Append(st.val[:0], s)
	if err := st.set(t.key(g, k), st.val); err != nil {
		t.b.record(fmt.Errorf("state: write %q: %w", t.name, err))
	}
}

func (t *kvTable[K, S]) remove(g int, k K) {
	if err := t.b.kv.bg.get(); err != nil {
		t.b.record(err)
		return
	}
	if err := t.b.kv.del(t.key(g, k)); err != nil {
		t.b.record(fmt.Errorf("state: delete %q: %w", t.name, err))
	}
}

// scan calls fn with the key bytes and value of every entry of local key
// group g; the slices are valid only during the call. It writes the
// cached writes back first, so that Pebble holds them all.
func (t *kvTable[K, S]) scan(g int, fn func(key, val []byte) error) error {
	if err := t.b.kv.writeBack(); err != nil {
		return err
	}
	prefix := statePrefix(nil, g+t.b.start, t.name)
	return scanPrefix(t.b.kv.db, prefix, func(k, v []byte) error { return fn(k[len(prefix):], v) })
}

// scanPrefix calls fn for every entry of r whose key starts with prefix.
func scanPrefix(r pebble.Reader, prefix []byte, fn func(key, val []byte) error) error {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			_ = it.Close()
			return err
		}
	}
	return it.Close()
}

func (t *kvTable[K, S]) snapshotGroup(dst []byte, g int, _ codec.Codec[K]) ([]byte, error) {
	var n uint64
	var body []byte
	err := t.scan(g, func(k, v []byte) error {
		n++
		body = append(append(body, k...), v...)
		return nil
	})
	if err != nil {
		return dst, err
	}
	dst = binary.AppendUvarint(dst, n)
	return append(dst, body...), nil
}

func (t *kvTable[K, S]) restoreGroup(g int, payload []byte, _ codec.Codec[K]) error {
	n, rest, err := uvarint(payload)
	if err != nil {
		return err
	}
	if err := t.b.kv.invalidate(); err != nil {
		return err
	}
	batch := t.b.kv.db.NewBatch()
	defer batch.Close()
	prefix := statePrefix(nil, g+t.b.start, t.name)
	for i := uint64(0); i < n; i++ {
		_, km, err := t.kc.Decode(rest)
		if err != nil {
			return fmt.Errorf("%w: key: %v", ErrCorruptSnapshot, err)
		}
		_, vm, err := t.sc.Decode(rest[km:])
		if err != nil {
			return fmt.Errorf("%w: value: %v", ErrCorruptSnapshot, err)
		}
		key := append(append([]byte(nil), prefix...), rest[:km]...)
		if err := batch.Set(key, rest[km:km+vm], nil); err != nil {
			return err
		}
		rest = rest[km+vm:]
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrCorruptSnapshot, len(rest))
	}
	return batch.Commit(pebble.NoSync)
}

func (t *kvTable[K, S]) numEntries() int {
	n := 0
	for g := range t.b.numGroups() {
		if err := t.scan(g, func(_, _ []byte) error { n++; return nil }); err != nil {
			t.b.record(fmt.Errorf("state: count %q: %w", t.name, err))
		}
	}
	return n
}

func (t *kvTable[K, S]) contains(g int, k K) bool {
	_, ok := t.lookup(g, k)
	return ok
}

func (t *kvTable[K, S]) appendKeys(g int, dst []K) []K {
	err := t.scan(g, func(kb, _ []byte) error {
		k, _, err := t.kc.Decode(kb)
		if err != nil {
			return err
		}
		dst = append(dst, k)
		return nil
	})
	if err != nil {
		t.b.record(fmt.Errorf("state: keys of %q: %w", t.name, err))
	}
	return dst
}

// keys collects the keys first, so the caller may write state while
// ranging.
func (t *kvTable[K, S]) keys(g int) iter.Seq[K] {
	return func(yield func(K) bool) {
		for _, k := range t.appendKeys(g, nil) {
			if !yield(k) {
				return
			}
		}
	}
}

// capture returns nil: a Pebble backend captures the whole database at
// once (see KeyedBackend.Capture).
func (t *kvTable[K, S]) capture() registered[K] { return nil }

// brokenTable stands in for a state whose types have no codec; the error
// is recorded in the backend, and the state reads as empty.
type brokenTable[K comparable, S any] struct{}

func (brokenTable[K, S]) lookup(int, K) (S, bool) {
	var zero S
	return zero, false
}
func (t brokenTable[K, S]) lookupForWrite(g int, k K) (S, bool) { return t.lookup(g, k) }
func (brokenTable[K, S]) store(int, K, S)                       {}
func (brokenTable[K, S]) remove(int, K)                         {}
func (brokenTable[K, S]) snapshotGroup(dst []byte, _ int, _ codec.Codec[K]) ([]byte, error) {
	return binary.AppendUvarint(dst, 0), nil
}
func (brokenTable[K, S]) restoreGroup(int, []byte, codec.Codec[K]) error {
	return fmt.Errorf("%w: state without a codec", ErrCorruptSnapshot)
}
func (brokenTable[K, S]) valueType() reflect.Type       { return reflect.TypeFor[S]() }
func (brokenTable[K, S]) numEntries() int               { return 0 }
func (brokenTable[K, S]) contains(int, K) bool          { return false }
func (brokenTable[K, S]) appendKeys(_ int, dst []K) []K { return dst }
func (brokenTable[K, S]) keys(int) iter.Seq[K]          { return func(func(K) bool) {} }
func (brokenTable[K, S]) capture() registered[K]        { return nil }

func (t *kvTable[K, S]) valueType() reflect.Type { return reflect.TypeFor[S]() }
