package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
	"github.com/cockroachdb/pebble/vfs"
)

// kvStore is the Pebble database behind a Pebble-backed KeyedBackend, in a
// local directory that the backend owns and removes when it closes.
//
// Every entry of every state is one Pebble key:
//
//	2 bytes   key group, big endian
//	uvarint   len(state name), state name
//	...       the codec encoding of the key
//
// and its value is the codec encoding of what the key maps to (V, []V or
// map[UK]UV). Key groups come first so that the entries of a key-group
// range are one contiguous span: a restore at another parallelism copies
// the span it owns out of each old database, and a key group's section of
// a savepoint is one scan.
//
// The write-ahead log is off: a checkpoint flushes the memtable and takes
// Pebble's own checkpoint (hard links to the immutable SST files), and
// recovery restores from checkpoints, never from a crashed local directory.
type kvStore struct {
	db  *pebble.DB
	dir string
	// cache holds recently used entries and the writes not yet in db
	// (see kvcache.go).
	cache kvCache
	// key and val are scratch buffers; the backend is used from one
	// goroutine.
	key, val []byte
	// bg is where Pebble reports the failures of its background work.
	bg *backgroundErrors
}

// backgroundErrors keeps the first failure of a database's background
// work (a flush or compaction, e.g. on a full disk). Pebble retries such
// work forever and meanwhile lets writers wait for room in its memtables
// and Flush wait for a flush that never ends; a task stuck there neither
// fails nor answers a cancel. So the backend fails instead: every write
// and every capture checks for a background failure first, and a capture
// waits for its flush or a failure, whichever comes first.
type backgroundErrors struct {
	dir    string
	once   sync.Once
	err    error
	failed chan struct{}
}

func newBackgroundErrors(dir string) *backgroundErrors {
	return &backgroundErrors{dir: dir, failed: make(chan struct{})}
}

// record keeps err if it is the first; Pebble calls it from its own
// goroutines.
func (b *backgroundErrors) record(err error) {
	b.once.Do(func() {
		b.err = fmt.Errorf("state: pebble at %s: background work failed: %w", b.dir, err)
		close(b.failed)
	})
}

// get returns the first background failure, or nil.
func (b *backgroundErrors) get() error {
	select {
	case <-b.failed:
		return b.err
	default:
		return nil
	}
}

// flush flushes the memtable, or returns the background failure that
// keeps it from ever completing.
func (s *kvStore) flush() error {
	if err := s.bg.get(); err != nil {
		return err
	}
	done, err := s.db.AsyncFlush()
	if err != nil {
		return fmt.Errorf("state: flush pebble at %s: %w", s.dir, err)
	}
	select {
	case <-done:
		return s.bg.get()
	case <-s.bg.failed:
		return s.bg.err
	}
}

// Sizes of a state database: its block cache and memtable. State access
// is mostly point lookups of keys that may not exist yet (the first record
// of a key), so every level has a bloom filter.
const (
	pebbleCacheBytes    = 32 << 20
	pebbleMemTableBytes = 32 << 20
	pebbleLBaseBytes    = 8 << 20
	bloomBitsPerKey     = 10
)

// pebbleOptions are the options Weir opens every state database with; the
// caller releases cache (cache.Unref) once the database is open.
func pebbleOptions(log *slog.Logger, readOnly bool, bg *backgroundErrors) (opts *pebble.Options, cache *pebble.Cache) {
	if log == nil {
		log = slog.Default()
	}
	cache = pebble.NewCache(pebbleCacheBytes)
	opts = &pebble.Options{
		DisableWAL:   true,
		ReadOnly:     readOnly,
		Logger:       pebbleLogger{log},
		Cache:        cache,
		MemTableSize: pebbleMemTableBytes,
		// A small base level keeps what a compaction of fresh data
		// rewrites small: updates spread over every key group overlap
		// every file of the base level, so its size bounds what an
		// incremental checkpoint uploads after a compaction.
		LBaseMaxBytes: pebbleLBaseBytes,
		Levels:        make([]pebble.LevelOptions, 7),
	}
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(bloomBitsPerKey)
	}
	if bg != nil {
		opts.EventListener = &pebble.EventListener{BackgroundError: bg.record}
	}
	// The plain file system, not Pebble's default wrapper that checks every
	// open file's writes from a goroutine of its own: nothing here listens
	// for slow disks, and a file that a write failure (a full disk) leaves
	// open would keep that goroutine forever.
	opts.FS = vfs.Default
	return opts.EnsureDefaults(), cache
}

// openPebble opens the database in dir with Weir's options; bg, when not
// nil, receives the failures of its background work.
func openPebble(dir string, log *slog.Logger, readOnly bool, bg *backgroundErrors) (*pebble.DB, error) {
	opts, cache := pebbleOptions(log, readOnly, bg)
	defer cache.Unref()
	return pebble.Open(dir, opts)
}

func openKV(dir string, log *slog.Logger) (*kvStore, error) {
	bg := newBackgroundErrors(dir)
	db, err := openPebble(dir, log, false, bg)
	if err != nil {
		return nil, fmt.Errorf("state: open pebble at %s: %w", dir, err)
	}
	return &kvStore{db: db, dir: dir, bg: bg, cache: newKVCache(defaultCacheBytes)}, nil
}

func (s *kvStore) close() error {
	err := s.db.Close()
	if rerr := os.RemoveAll(s.dir); rerr != nil {
		err = errors.Join(err, rerr)
	}
	if err != nil {
		return fmt.Errorf("state: close pebble at %s: %w", s.dir, err)
	}
	return nil
}

// groupPrefix appends the 2-byte prefix of key group kg to dst.
func groupPrefix(dst []byte, kg int) []byte {
	return binary.BigEndian.AppendUint16(dst, uint16(kg))
}

// statePrefix appends the prefix of state name's entries in key group kg.
func statePrefix(dst []byte, kg int, name string) []byte {
	dst = groupPrefix(dst, kg)
	dst = binary.AppendUvarint(dst, uint64(len(name)))
	return append(dst, name...)
}

// prefixEnd returns the smallest key greater than every key with prefix p,
// or nil if there is none (p is all 0xff).
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// spanOf returns the bounds of the key groups [start, end].
func spanOf(start, end int) (lower, upper []byte) {
	lower = groupPrefix(nil, start)
	if end+1 <= 0xffff {
		upper = groupPrefix(nil, end+1)
	}
	return lower, upper
}

// splitKey parses a Pebble key into key group, state name and key bytes.
func splitKey(k []byte) (kg int, name string, key []byte, err error) {
	if len(k) < 2 {
		return 0, "", nil, fmt.Errorf("%w: pebble key of %d bytes", ErrCorruptSnapshot, len(k))
	}
	kg = int(binary.BigEndian.Uint16(k))
	n, m := binary.Uvarint(k[2:])
	if m <= 0 || uint64(len(k)-2-m) < n {
		return 0, "", nil, fmt.Errorf("%w: pebble key with a bad state name", ErrCorruptSnapshot)
	}
	return kg, string(k[2+m : 2+m+int(n)]), k[2+m+int(n):], nil
}

// pebbleLogger sends Pebble's log to slog. Pebble calls Fatalf when it
// cannot go on; that is a panic here, which fails the task.
type pebbleLogger struct{ log *slog.Logger }

func (l pebbleLogger) Infof(format string, args ...any) {
	l.log.Debug("pebble: " + fmt.Sprintf(format, args...))
}

func (l pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.log.Error("pebble: " + msg)
	panic("pebble: " + msg)
}

// CopyFromPebble copies the entries of the backend's key groups out of
// the Pebble database in dir, a restored capture of a subtask that owned
// other key groups before a rescale; the backend must be a Pebble backend.
// dir is opened read-only and left as it is.
func (b *KeyedBackend[K]) CopyFromPebble(dir string) error {
	if b.kv == nil {
		return fmt.Errorf("state: copy from pebble into a heap backend")
	}
	if err := b.kv.invalidate(); err != nil {
		return err
	}
	src, err := openPebble(dir, b.log, true, nil)
	if err != nil {
		return fmt.Errorf("state: open restored pebble %s: %w", dir, err)
	}
	defer src.Close()
	lower, upper := spanOf(b.start, b.end)
	it, err := src.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return fmt.Errorf("state: read restored pebble %s: %w", dir, err)
	}
	batch := b.kv.db.NewBatch()
	for it.First(); it.Valid() && err == nil; it.Next() {
		err = batch.Set(it.Key(), it.Value(), nil)
		if err == nil && batch.Len() >= 4<<20 {
			err = batch.Commit(pebble.NoSync)
			_ = batch.Close()
			batch = b.kv.db.NewBatch()
		}
	}
	if err == nil {
		err = batch.Commit(pebble.NoSync)
	}
	err = errors.Join(err, it.Close(), batch.Close())
	if err != nil {
		return fmt.Errorf("state: copy key groups [%d, %d] from %s: %w", b.start, b.end, dir, err)
	}
	return nil
}
