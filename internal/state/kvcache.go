package state

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble"
)

// A Pebble backend keeps a bounded write-back cache of encoded entries in
// front of the database. Without it every state access is a Pebble Get
// (a memtable skiplist seek and, for keys not in the memtable, a bloom
// filter probe and block read per level) and every write a Pebble Set
// (its own commit through the commit pipeline): a keyed counter paid
// 15-24x the heap backend's time on the wordcount job. With the cache a
// key's first access reads Pebble once, later accesses are a Go map
// lookup, and writes reach Pebble in batches.
//
// The cache holds the same bytes Pebble would (the codec encoding of
// what a key maps to), so every lookup still decodes a fresh value that
// its caller may change in place. It is bounded in bytes: past the bound,
// every dirty entry is written to Pebble in one batch and entries not
// used since the last eviction are dropped (a CLOCK approximation of
// LRU) until a quarter of the bound is free. State larger than memory
// therefore works as it did, with hot keys served from memory.
//
// Whatever reads Pebble itself first writes the dirty entries back
// (writeBack): a capture at a checkpoint barrier, so that it sees every write
// made before the barrier, and the scans behind snapshots, key iteration
// and entry counts. Whatever writes Pebble itself (a restore) drops the
// cache (invalidate).

// defaultCacheBytes bounds the cache of a backend. It is about what one
// Pebble memtable takes, and holds a few hundred thousand small entries.
const defaultCacheBytes = 32 << 20

// cacheEntryOverhead is what an entry costs beyond its key and value
// bytes: the map slot, the entry and the slice and string headers.
const cacheEntryOverhead = 96

// cacheEntry is the cached state of one Pebble key.
type cacheEntry struct {
	key string
	// val is the encoded value when present; a key that is not present
	// has no entry in Pebble (never written, deleted, or to be deleted).
	val     []byte
	present bool
	// dirty: Pebble does not hold this yet.
	dirty bool
	// used: read or written since the last eviction pass.
	used bool
}

// size is what e counts against the cache's bound.
func (e *cacheEntry) size() int { return len(e.key) + cap(e.val) + cacheEntryOverhead }

// kvCache is the cache of one kvStore; see above.
type kvCache struct {
	entries map[string]*cacheEntry
	// dirty lists the entries Pebble does not hold yet (each once).
	dirty []*cacheEntry
	bytes int
	limit int
}

func newKVCache(limit int) kvCache {
	return kvCache{entries: make(map[string]*cacheEntry), limit: limit}
}

// get returns the encoded value of key, valid until the next call that
// writes; ok is false when the key has no entry.
func (s *kvStore) get(key []byte) (val []byte, ok bool, err error) {
	if e := s.cache.entries[string(key)]; e != nil {
		e.used = true
		return e.val, e.present, nil
	}
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		s.insert(key, nil, false, false)
		return nil, false, s.evictIfFull()
	}
	if err != nil {
		return nil, false, err
	}
	e := s.insert(key, v, true, false)
	if err := closer.Close(); err != nil {
		return nil, false, err
	}
	// Eviction leaves e.val as it is, even if it drops e.
	return e.val, true, s.evictIfFull()
}

// set makes val the encoded value of key.
func (s *kvStore) set(key, val []byte) error { return s.put(key, val, true) }

// del removes key's entry.
func (s *kvStore) del(key []byte) error { return s.put(key, nil, false) }

// put records a write of key in the cache, to reach Pebble at the next
// write-back.
func (s *kvStore) put(key, val []byte, present bool) error {
	e := s.cache.entries[string(key)]
	if e == nil {
		s.insert(key, val, present, true)
		return s.evictIfFull()
	}
	before := cap(e.val)
	e.val = append(e.val[:0], val...)
	e.present, e.used = present, true
	s.cache.bytes += cap(e.val) - before
	if !e.dirty {
		e.dirty = true
		s.cache.dirty = append(s.cache.dirty, e)
	}
	return s.evictIfFull()
}

// insert adds a new entry for key, copying key and val.
func (s *kvStore) insert(key, val []byte, present, dirty bool) *cacheEntry {
	e := &cacheEntry{key: string(key), present: present, dirty: dirty, used: true}
	if present {
		e.val = append([]byte(nil), val...)
	}
	s.cache.entries[e.key] = e
	s.cache.bytes += e.size()
	if dirty {
		s.cache.dirty = append(s.cache.dirty, e)
	}
	return e
}

// evictIfFull writes the dirty entries back and drops unused ones when
// the cache is over its bound, until a quarter of it is free.
func (s *kvStore) evictIfFull() error {
	if s.cache.bytes <= s.cache.limit {
		return nil
	}
	if err := s.writeBack(); err != nil {
		return err
	}
	target := s.cache.limit - s.cache.limit/4
	// The first pass spares the entries used since the last eviction and
	// marks them unused; the second drops whatever it must.
	for pass := 0; pass < 2 && s.cache.bytes > target; pass++ {
		for k, e := range s.cache.entries {
			if s.cache.bytes <= target {
				break
			}
			if e.used && pass == 0 {
				e.used = false
				continue
			}
			delete(s.cache.entries, k)
			s.cache.bytes -= e.size()
		}
	}
	return nil
}

// writeBack writes every dirty entry to Pebble in one batch; the entries
// stay cached, clean. A database whose background work failed is not
// written: its writers could wait for memtable room forever.
func (s *kvStore) writeBack() error {
	if len(s.cache.dirty) == 0 {
		return nil
	}
	if err := s.bg.get(); err != nil {
		return err
	}
	batch := s.db.NewBatch()
	defer batch.Close()
	for _, e := range s.cache.dirty {
		var err error
		if e.present {
			err = batch.Set([]byte(e.key), e.val, nil)
		} else {
			err = batch.Delete([]byte(e.key), nil)
		}
		if err != nil {
			return fmt.Errorf("state: write back cached state: %w", err)
		}
	}
	if err := batch.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("state: write back cached state: %w", err)
	}
	for _, e := range s.cache.dirty {
		e.dirty = false
	}
	clear(s.cache.dirty)
	s.cache.dirty = s.cache.dirty[:0]
	return nil
}

// invalidate writes the dirty entries back and empties the cache, before
// something writes Pebble directly.
func (s *kvStore) invalidate() error {
	if err := s.writeBack(); err != nil {
		return err
	}
	clear(s.cache.entries)
	s.cache.bytes = 0
	return nil
}
