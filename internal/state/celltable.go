package state

import (
	"encoding/binary"
	"iter"
	"reflect"

	"github.com/weir-engine/weir/internal/codec"
)

// cell holds one key's value in a cellTable. ver is the table's version
// when the cell was made: a cell older than the table's version may be
// held by a capture and is never written again.
type cell[V any] struct {
	v   V
	ver uint64
}

// cellTable is the heap table of a ValueState without TTL: a heapTable of
// pointers to cells, so that a read-modify-write of the current key costs
// one map lookup. The cell found by the read is cached for the current key
// (until the next SetCurrentKey, see KeyedBackend.seq) and the write goes
// through it.
//
// Snapshots stay copy-on-write: capture bumps ver besides sharing the
// key-group maps, and a write to a cell of an older version stores a new
// cell (in a map that own made private) instead of changing the old one,
// which a capture may be serializing on another goroutine.
type cellTable[K comparable, V any] struct {
	heap *heapTable[K, *cell[V]]
	b    *KeyedBackend[K]
	ver  uint64
	// cur is the cell of the current key (nil: it has none) when seq is
	// b.seq; seq 0 means no cell is cached.
	cur *cell[V]
	seq uint64
}

func newCellTable[K comparable, V any](b *KeyedBackend[K]) *cellTable[K, V] {
	return &cellTable[K, V]{heap: newHeapTable[K, *cell[V]](b.numGroups(), nil), b: b}
}

// current returns the cell of the current key, in local key group g,
// looking it up only once per SetCurrentKey.
func (t *cellTable[K, V]) current(g int) *cell[V] {
	if t.seq != t.b.seq {
		t.cur = t.heap.groups[g][t.b.key]
		t.seq = t.b.seq
	}
	return t.cur
}

// value returns the current key's value; g is its local key group.
func (t *cellTable[K, V]) value(g int) (V, bool) {
	if c := t.current(g); c != nil {
		return c.v, true
	}
	var zero V
	return zero, false
}

// update sets the current key's value; g is its local key group.
func (t *cellTable[K, V]) update(g int, v V) {
	if c := t.current(g); c != nil && c.ver == t.ver {
		c.v = v
		return
	}
	c := &cell[V]{v: v, ver: t.ver}
	t.heap.store(g, t.b.key, c)
	t.cur = c
}

func (t *cellTable[K, V]) lookup(g int, k K) (V, bool) {
	if c, ok := t.heap.lookup(g, k); ok {
		return c.v, true
	}
	var zero V
	return zero, false
}

func (t *cellTable[K, V]) lookupForWrite(g int, k K) (V, bool) { return t.lookup(g, k) }

// store sets the entry of k, which need not be the current key.
func (t *cellTable[K, V]) store(g int, k K, v V) {
	if c, ok := t.heap.lookup(g, k); ok && c.ver == t.ver {
		c.v = v
		return
	}
	t.heap.store(g, k, &cell[V]{v: v, ver: t.ver})
	t.seq = 0
}

func (t *cellTable[K, V]) remove(g int, k K) {
	t.heap.remove(g, k)
	t.seq = 0
}

func (t *cellTable[K, V]) capture() registered[K] {
	c := t.heap.capture()
	t.ver++
	return &cellTable[K, V]{heap: c.(*heapTable[K, *cell[V]])}
}

func (t *cellTable[K, V]) snapshotGroup(dst []byte, g int, kc codec.Codec[K]) ([]byte, error) {
	vc, err := codec.For[V]()
	if err != nil {
		return dst, err
	}
	m := t.heap.groups[g]
	dst = binary.AppendUvarint(dst, uint64(len(m)))
	for k, c := range m {
		dst = kc.Append(dst, k)
		dst = vc.Append(dst, c.v)
	}
	return dst, nil
}

func (t *cellTable[K, V]) restoreGroup(g int, payload []byte, kc codec.Codec[K]) error {
	t.seq = 0
	return decodeEntries(payload, kc, func(k K, v V) { t.heap.store(g, k, &cell[V]{v: v, ver: t.ver}) })
}

func (t *cellTable[K, V]) numEntries() int               { return t.heap.numEntries() }
func (t *cellTable[K, V]) valueType() reflect.Type       { return reflect.TypeFor[V]() }
func (t *cellTable[K, V]) contains(g int, k K) bool      { return t.heap.contains(g, k) }
func (t *cellTable[K, V]) appendKeys(g int, dst []K) []K { return t.heap.appendKeys(g, dst) }
func (t *cellTable[K, V]) keys(g int) iter.Seq[K]        { return t.heap.keys(g) }
