package state

import (
	"encoding/binary"
	"iter"
	"maps"
	"reflect"
	"slices"

	"github.com/weir-engine/weir/internal/codec"
)

// smallMapMax is how many entries a mapCell keeps in its slice before it
// moves them to a Go map.
const smallMapMax = 8

// mapEntry is one entry of a small mapCell.
type mapEntry[UK comparable, UV any] struct {
	k UK
	v UV
}

// mapCell holds one key's map in a mapCellTable: up to smallMapMax entries
// in a slice, in no particular order, or more in a Go map (m non-nil,
// e unused). ver is the table's version when the cell was made, as in
// cellTable: a cell older than the table's version may be held by a
// capture and is never written again.
type mapCell[UK comparable, UV any] struct {
	e   []mapEntry[UK, UV]
	m   map[UK]UV
	ver uint64
}

// find returns the index of uk in a small cell's entries, or -1.
func (c *mapCell[UK, UV]) find(uk UK) int {
	for i := range c.e {
		if c.e[i].k == uk {
			return i
		}
	}
	return -1
}

func (c *mapCell[UK, UV]) get(uk UK) (UV, bool) {
	if c.m != nil {
		uv, ok := c.m[uk]
		return uv, ok
	}
	if i := c.find(uk); i >= 0 {
		return c.e[i].v, true
	}
	var zero UV
	return zero, false
}

func (c *mapCell[UK, UV]) len() int {
	if c.m != nil {
		return len(c.m)
	}
	return len(c.e)
}

func (c *mapCell[UK, UV]) put(uk UK, uv UV) {
	switch i := c.find(uk); {
	case c.m != nil:
		c.m[uk] = uv
	case i >= 0:
		c.e[i].v = uv
	case len(c.e) < smallMapMax:
		c.e = append(c.e, mapEntry[UK, UV]{uk, uv})
	default:
		c.m = make(map[UK]UV, len(c.e)+1)
		for _, e := range c.e {
			c.m[e.k] = e.v
		}
		c.m[uk] = uv
		c.e = nil
	}
}

// del removes uk; the last entry takes its place.
func (c *mapCell[UK, UV]) del(uk UK) {
	if c.m != nil {
		delete(c.m, uk)
		return
	}
	if i := c.find(uk); i >= 0 {
		last := len(c.e) - 1
		c.e[i] = c.e[last]
		c.e[last] = mapEntry[UK, UV]{}
		c.e = c.e[:last]
	}
}

// clone returns a copy of c of version ver that shares nothing with it.
func (c *mapCell[UK, UV]) clone(ver uint64) *mapCell[UK, UV] {
	return &mapCell[UK, UV]{e: slices.Clone(c.e), m: maps.Clone(c.m), ver: ver}
}

// appendTo appends c as the codec of map[UK]UV encodes a non-nil map:
// uvarint(len+1), then each key and value.
func (c *mapCell[UK, UV]) appendTo(dst []byte, kc codec.Codec[UK], vc codec.Codec[UV]) []byte {
	dst = binary.AppendUvarint(dst, uint64(c.len())+1)
	if c.m != nil {
		for uk, uv := range c.m {
			dst = vc.Append(kc.Append(dst, uk), uv)
		}
		return dst
	}
	for i := range c.e {
		dst = vc.Append(kc.Append(dst, c.e[i].k), c.e[i].v)
	}
	return dst
}

// mapCellTable is the heap table of a MapState without TTL: a heapTable of
// pointers to mapCells. A small map is one object scanned without hashing,
// where a Go map is two (its header and its group) and ranging over it
// starts an iterator; the cell of the current key is looked up once per
// SetCurrentKey (see KeyedBackend.seq), so that a Get then a Put, or a
// range then a Remove, costs one lookup of the key.
//
// Snapshots are copy-on-write as in cellTable: capture bumps ver besides
// sharing the key-group maps, and a write to a cell of an older version
// first copies it. A snapshot holds the bytes the heapTable of
// map[UK]UV writes, so a snapshot of either restores into the other and
// into Pebble.
type mapCellTable[K comparable, UK comparable, UV any] struct {
	heap *heapTable[K, *mapCell[UK, UV]]
	b    *KeyedBackend[K]
	ver  uint64
	// cur is the cell of the current key (nil: it has none) when seq is
	// b.seq; seq 0 means no cell is cached.
	cur *mapCell[UK, UV]
	seq uint64
	// mods counts writes, so that a range over a small map can tell
	// whether the entries it copied may have changed.
	mods uint64
}

func newMapCellTable[K comparable, UK comparable, UV any](b *KeyedBackend[K]) *mapCellTable[K, UK, UV] {
	return &mapCellTable[K, UK, UV]{heap: newHeapTable[K, *mapCell[UK, UV]](b.numGroups(), nil), b: b}
}

// current returns the cell of the current key, in local key group g.
func (t *mapCellTable[K, UK, UV]) current(g int) *mapCell[UK, UV] {
	if t.seq != t.b.seq {
		t.cur = t.heap.groups[g][t.b.key]
		t.seq = t.b.seq
	}
	return t.cur
}

// writable returns the current key's cell for a write, made or copied
// first if it has none or it may be held by a capture.
func (t *mapCellTable[K, UK, UV]) writable(g int) *mapCell[UK, UV] {
	t.mods++
	c := t.current(g)
	switch {
	case c == nil:
		c = &mapCell[UK, UV]{ver: t.ver}
	case c.ver != t.ver:
		c = c.clone(t.ver)
	default:
		return c
	}
	t.heap.store(g, t.b.key, c)
	t.cur = c
	return c
}

func (t *mapCellTable[K, UK, UV]) get(g int, uk UK) (UV, bool) {
	if c := t.current(g); c != nil {
		return c.get(uk)
	}
	var zero UV
	return zero, false
}

func (t *mapCellTable[K, UK, UV]) put(g int, uk UK, uv UV) {
	t.writable(g).put(uk, uv)
}

// del removes uk from the current key's map, and the key's entry once
// its map is empty.
func (t *mapCellTable[K, UK, UV]) del(g int, uk UK) {
	c := t.current(g)
	if c == nil {
		return
	}
	if _, ok := c.get(uk); !ok {
		return
	}
	c = t.writable(g)
	if c.del(uk); c.len() == 0 {
		t.remove(g, t.b.key)
	}
}

func (t *mapCellTable[K, UK, UV]) size(g int) int {
	if c := t.current(g); c != nil {
		return c.len()
	}
	return 0
}

// all ranges over the current key's map. A small map's entries are
// copied first, since a Remove moves the last entry; after a write during
// the range each copied entry is looked up again, so that, as with a Go
// map, an entry removed before it is reached is not produced.
func (t *mapCellTable[K, UK, UV]) all(g int, yield func(UK, UV) bool) {
	c := t.current(g)
	switch {
	case c == nil:
		return
	case c.m != nil:
		for uk, uv := range c.m {
			if !yield(uk, uv) {
				return
			}
		}
		return
	}
	var buf [smallMapMax]mapEntry[UK, UV]
	n, mods, key := copy(buf[:], c.e), t.mods, t.b.key
	for i := range n {
		uk, uv := buf[i].k, buf[i].v
		if t.mods != mods {
			now := t.heap.groups[g][key]
			if now == nil {
				return
			}
			var ok bool
			if uv, ok = now.get(uk); !ok {
				continue
			}
		}
		if !yield(uk, uv) {
			return
		}
	}
}

func (t *mapCellTable[K, UK, UV]) remove(g int, k K) {
	t.mods++
	t.heap.remove(g, k)
	t.seq = 0
}

func (t *mapCellTable[K, UK, UV]) capture() registered[K] {
	c := t.heap.capture()
	t.ver++
	return &mapCellTable[K, UK, UV]{heap: c.(*heapTable[K, *mapCell[UK, UV]])}
}

func (t *mapCellTable[K, UK, UV]) snapshotGroup(dst []byte, g int, kc codec.Codec[K]) ([]byte, error) {
	ukc, err := codec.For[UK]()
	if err != nil {
		return dst, err
	}
	uvc, err := codec.For[UV]()
	if err != nil {
		return dst, err
	}
	m := t.heap.groups[g]
	dst = binary.AppendUvarint(dst, uint64(len(m)))
	for k, c := range m {
		dst = c.appendTo(kc.Append(dst, k), ukc, uvc)
	}
	return dst, nil
}

func (t *mapCellTable[K, UK, UV]) restoreGroup(g int, payload []byte, kc codec.Codec[K]) error {
	t.mods++
	t.seq = 0
	return decodeEntries(payload, kc, func(k K, m map[UK]UV) {
		if len(m) == 0 {
			return // a key whose map is empty has no state
		}
		c := &mapCell[UK, UV]{ver: t.ver}
		for uk, uv := range m {
			c.put(uk, uv)
		}
		t.heap.store(g, k, c)
	})
}

func (t *mapCellTable[K, UK, UV]) numEntries() int               { return t.heap.numEntries() }
func (t *mapCellTable[K, UK, UV]) valueType() reflect.Type       { return reflect.TypeFor[map[UK]UV]() }
func (t *mapCellTable[K, UK, UV]) contains(g int, k K) bool      { return t.heap.contains(g, k) }
func (t *mapCellTable[K, UK, UV]) appendKeys(g int, dst []K) []K { return t.heap.appendKeys(g, dst) }
func (t *mapCellTable[K, UK, UV]) keys(g int) iter.Seq[K]        { return t.heap.keys(g) }
