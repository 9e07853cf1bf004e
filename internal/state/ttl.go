package state

import (
	"fmt"
	"iter"
	"reflect"
	"time"

	"github.com/weir-engine/weir/internal/codec"
)

// State TTL, as Flink's StateTtlConfig. A state registered with a
// TTLConfig stores each key's entry with the time of its last refresh on
// the backend's processing-time clock (SetClock: the task's clock, so tests
// advance a fake clock instead of sleeping). An entry is expired once
// refresh time + TTL <= now; expired entries are never returned (Flink's
// NeverReturnExpired) and are removed when read. Which accesses refresh is
// the update type. The TTL applies to a key's whole entry: a ListState's
// list or a MapState's map, not each element of them as in Flink.
//
// Cleanup of entries nobody reads again, three ways as in Flink:
//
//   - Full snapshots: before a heap backend captures its state for a
//     checkpoint or savepoint, the expired entries of TTL states are
//     removed, so no snapshot holds them (Flink filters them while writing
//     a full snapshot; removing them also frees the heap).
//   - Incrementally: every access of a TTL state checks the next
//     IncrementalCleanupSize entries of that state, resuming where the last
//     access stopped, and removes the expired ones.
//   - Pebble: Pebble v1.1.5 has no compaction filter (RocksDB's
//     FlinkCompactionFilter drops expired entries while compacting). The
//     closest honest mechanism: at each capture, after Pebble flushed its
//     memtable, the next CompactionCleanupSize entries of each TTL state
//     are scanned and the expired ones deleted; the point deletes are
//     written to Pebble, and its compactions drop the deleted values with
//     their tombstones. It costs reads that a compaction filter would not,
//     bounded per checkpoint, on the task's goroutine.

// TTLUpdate says which accesses refresh an entry's time to live.
type TTLUpdate uint8

const (
	// OnCreateAndWrite refreshes on writes only (Flink's default).
	OnCreateAndWrite TTLUpdate = iota
	// OnReadAndWrite refreshes on reads too.
	OnReadAndWrite
)

func (u TTLUpdate) String() string {
	if u == OnReadAndWrite {
		return "OnReadAndWrite"
	}
	return "OnCreateAndWrite"
}

// TTLConfig is the time to live of a state.
type TTLConfig struct {
	TTL    time.Duration
	Update TTLUpdate
	// CleanupFullSnapshot removes expired entries before each capture of
	// a heap backend.
	CleanupFullSnapshot bool
	// IncrementalCleanupSize is the number of entries checked at each
	// access (0: none).
	IncrementalCleanupSize int
	// CompactionCleanupSize is the number of entries a Pebble backend
	// checks at each capture (0: none).
	CompactionCleanupSize int
}

// Validate reports a configuration that cannot work.
func (c TTLConfig) Validate() error {
	if c.TTL <= 0 {
		return fmt.Errorf("state: TTL %v must be positive", c.TTL)
	}
	if c.Update > OnReadAndWrite {
		return fmt.Errorf("state: unknown TTL update type %d", c.Update)
	}
	if c.IncrementalCleanupSize < 0 || c.CompactionCleanupSize < 0 {
		return fmt.Errorf("state: negative TTL cleanup size")
	}
	return nil
}

// Stamped is what a TTL state stores per key: the value and the time of its
// last refresh, in milliseconds of processing time. It is part of the
// snapshot format of TTL states.
type Stamped[S any] struct {
	Refreshed int64
	Value     S
}

// ttlTable is a table of S over a table of Stamped[S].
type ttlTable[K comparable, S any] struct {
	b     *KeyedBackend[K]
	inner table[K, Stamped[S]]
	cfg   TTLConfig
	ttl   int64
	// The incremental cleanup's position: the keys of local key group g
	// collected when it started on g, and the next one to check.
	g, nextGroup int
	pending      []K
	pos          int
}

func newTTLTable[K comparable, S any](b *KeyedBackend[K], name string, deep func(S) S, cfg TTLConfig) table[K, S] {
	var innerDeep func(Stamped[S]) Stamped[S]
	if deep != nil {
		innerDeep = func(s Stamped[S]) Stamped[S] { return Stamped[S]{s.Refreshed, deep(s.Value)} }
	}
	return &ttlTable[K, S]{b: b, inner: newTable[K, Stamped[S]](b, name, innerDeep), cfg: cfg, ttl: cfg.TTL.Milliseconds()}
}

func (t *ttlTable[K, S]) expired(e Stamped[S], now int64) bool { return e.Refreshed+t.ttl <= now }

func (t *ttlTable[K, S]) lookup(g int, k K) (S, bool) { return t.read(g, k, false) }

func (t *ttlTable[K, S]) lookupForWrite(g int, k K) (S, bool) { return t.read(g, k, true) }

func (t *ttlTable[K, S]) read(g int, k K, forWrite bool) (S, bool) {
	var zero S
	now := t.b.now()
	t.cleanup(now, t.cfg.IncrementalCleanupSize)
	var e Stamped[S]
	var ok bool
	if forWrite {
		e, ok = t.inner.lookupForWrite(g, k)
	} else {
		e, ok = t.inner.lookup(g, k)
	}
	if !ok {
		return zero, false
	}
	if t.expired(e, now) {
		t.inner.remove(g, k)
		return zero, false
	}
	if t.cfg.Update == OnReadAndWrite && e.Refreshed != now {
		t.inner.store(g, k, Stamped[S]{now, e.Value})
	}
	return e.Value, true
}

func (t *ttlTable[K, S]) store(g int, k K, s S) {
	now := t.b.now()
	t.cleanup(now, t.cfg.IncrementalCleanupSize)
	t.inner.store(g, k, Stamped[S]{now, s})
}

func (t *ttlTable[K, S]) remove(g int, k K) { t.inner.remove(g, k) }

// cleanup checks up to n entries from where it stopped last and removes
// the expired ones; it visits each key group at most once per call.
func (t *ttlTable[K, S]) cleanup(now int64, n int) {
	groups := t.b.numGroups()
	for visited := 0; n > 0; {
		if t.pos >= len(t.pending) {
			if visited == groups {
				return
			}
			visited++
			t.g = t.nextGroup
			t.nextGroup = (t.nextGroup + 1) % groups
			t.pending, t.pos = t.inner.appendKeys(t.g, t.pending[:0]), 0
			continue
		}
		k := t.pending[t.pos]
		t.pos++
		n--
		if e, ok := t.inner.lookup(t.g, k); ok && t.expired(e, now) {
			t.inner.remove(t.g, k)
		}
	}
}

// purge removes every expired entry.
func (t *ttlTable[K, S]) purge(now int64) {
	var keys []K
	for g := range t.b.numGroups() {
		keys = t.inner.appendKeys(g, keys[:0])
		for _, k := range keys {
			if e, ok := t.inner.lookup(g, k); ok && t.expired(e, now) {
				t.inner.remove(g, k)
			}
		}
	}
}

// beforeCapture is the full-snapshot and Pebble cleanup (see above).
func (t *ttlTable[K, S]) beforeCapture() {
	now := t.b.now()
	switch {
	case t.b.kv == nil && t.cfg.CleanupFullSnapshot:
		t.purge(now)
	case t.b.kv != nil && t.cfg.CompactionCleanupSize > 0:
		t.cleanup(now, t.cfg.CompactionCleanupSize)
	}
}

func (t *ttlTable[K, S]) snapshotGroup(dst []byte, g int, kc codec.Codec[K]) ([]byte, error) {
	return t.inner.snapshotGroup(dst, g, kc)
}

func (t *ttlTable[K, S]) restoreGroup(g int, payload []byte, kc codec.Codec[K]) error {
	return t.inner.restoreGroup(g, payload, kc)
}

func (t *ttlTable[K, S]) valueType() reflect.Type       { return t.inner.valueType() }
func (t *ttlTable[K, S]) numEntries() int               { return t.inner.numEntries() }
func (t *ttlTable[K, S]) contains(g int, k K) bool      { return t.inner.contains(g, k) }
func (t *ttlTable[K, S]) appendKeys(g int, dst []K) []K { return t.inner.appendKeys(g, dst) }
func (t *ttlTable[K, S]) keys(g int) iter.Seq[K]        { return t.inner.keys(g) }
func (t *ttlTable[K, S]) capture() registered[K]        { return t.inner.capture() }

// ttlCleaner is implemented by the tables of TTL states.
type ttlCleaner interface{ beforeCapture() }

// Option configures a state at registration.
type Option func(*descriptor)

type descriptor struct{ ttl *TTLConfig }

// WithTTL gives the state a time to live.
func WithTTL(c TTLConfig) Option { return func(d *descriptor) { d.ttl = &c } }

func describe(opts []Option) descriptor {
	var d descriptor
	for _, o := range opts {
		o(&d)
	}
	return d
}

func validOptions(opts []Option) error {
	if d := describe(opts); d.ttl != nil {
		return d.ttl.Validate()
	}
	return nil
}

// tableOf returns the table of a new state: a TTL table when opts say so.
func tableOf[K comparable, S any](b *KeyedBackend[K], name string, deep func(S) S, opts []Option) table[K, S] {
	if d := describe(opts); d.ttl != nil {
		return newTTLTable(b, name, deep, *d.ttl)
	}
	return newTable(b, name, deep)
}

// SetClock sets the processing-time clock that state TTL reads (the task's
// clock; time.Now by default).
func (b *KeyedBackend[K]) SetClock(now func() time.Time) { b.clock = now }

// now is the TTL clock in milliseconds.
func (b *KeyedBackend[K]) now() int64 {
	if b.clock == nil {
		return time.Now().UnixMilli()
	}
	return b.clock().UnixMilli()
}
