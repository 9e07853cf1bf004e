package state

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/sstable"
	"github.com/cockroachdb/pebble/vfs"
)

// Restoring Pebble state after a rescale, the way Flink's RocksDB backend
// restores an incremental checkpoint at another parallelism: the old
// database that overlaps the new key-group range most becomes the new
// database as it is ("clip DB": its files are opened in place and the key
// groups outside the range are range-deleted, a few tombstones instead of
// a delete per key), and the owned span of every other old database is
// written, already sorted, into an SST file with Pebble's table writer and
// ingested (linked into the LSM's lowest level that fits, without passing
// through the memtable, the flushes and the compactions a Put per key
// would cost). CopyFromPebble, a Put per key, is the old way, kept as the
// baseline of BenchmarkPebbleRescale.

// PebbleSource is the restored Pebble database of one old subtask: its
// directory and the key groups [KeyGroupStart, KeyGroupEnd] it owned.
type PebbleSource struct {
	Dir                        string
	KeyGroupStart, KeyGroupEnd int
}

// overlap returns how many key groups of [start, end] s holds.
func (s PebbleSource) overlap(start, end int) int {
	return max(0, min(end, s.KeyGroupEnd)-max(start, s.KeyGroupStart)+1)
}

// BasePebbleSource returns the index of the source that overlaps the key
// groups [start, end] most (the first of equals), or -1 if none does: the
// database RestorePebble opens in place.
func BasePebbleSource(start, end int, sources []PebbleSource) int {
	best, most := -1, 0
	for i, s := range sources {
		if n := s.overlap(start, end); n > most {
			best, most = i, n
		}
	}
	return best
}

// RestorePebble returns a Pebble backend owning the key groups [start,
// end] in dir, built from the databases of old subtasks after a rescale:
// the source BasePebbleSource picks is moved to dir (it must be on the
// same file system; dir must not exist or be empty) and clipped to the
// range, and the owned span of every other overlapping source is ingested
// as one SST file each. The sources other than the base are opened
// read-only and left as they are; the caller removes them.
func RestorePebble[K comparable](start, end int, dir string, sources []PebbleSource, log *slog.Logger) (*KeyedBackend[K], error) {
	base := BasePebbleSource(start, end, sources)
	if base < 0 {
		return OpenPebble[K](start, end, dir, log)
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("state: restore pebble into %s: %w", dir, err)
	}
	if err := os.Rename(sources[base].Dir, dir); err != nil {
		return nil, fmt.Errorf("state: restore pebble into %s: %w", dir, err)
	}
	b, err := OpenPebble[K](start, end, dir, log)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*KeyedBackend[K], error) {
		return nil, errors.Join(err, b.Close())
	}
	if err := b.kv.clip(start, end); err != nil {
		return fail(err)
	}
	var ssts []string
	for i, s := range sources {
		if i == base || s.overlap(start, end) == 0 {
			continue
		}
		path := filepath.Join(filepath.Dir(dir), fmt.Sprintf("%s.ingest-%d.sst", filepath.Base(dir), i))
		n, err := exportSpan(s.Dir, path, max(start, s.KeyGroupStart), min(end, s.KeyGroupEnd), b.kv.db.FormatMajorVersion(), log)
		if err != nil {
			return fail(err)
		}
		if n > 0 {
			ssts = append(ssts, path)
		} else if err := os.Remove(path); err != nil {
			return fail(fmt.Errorf("state: remove empty sst %s: %w", path, err))
		}
	}
	if len(ssts) > 0 {
		// Ingest moves the files into the database.
		if err := b.kv.db.Ingest(ssts); err != nil {
			return fail(fmt.Errorf("state: ingest key groups [%d, %d] into %s: %w", start, end, dir, err))
		}
	}
	return b, nil
}

// clip range-deletes every key outside the key groups [start, end] and
// flushes the tombstones, so that Pebble can drop the files they cover
// whole (delete-only compactions) and a capture's files never hold keys of
// other key groups as live data.
func (s *kvStore) clip(start, end int) error {
	var err error
	if start > 0 {
		err = s.db.DeleteRange(groupPrefix(nil, 0), groupPrefix(nil, start), pebble.NoSync)
	}
	if err == nil && end < 0xffff {
		// Key groups are below UpperBoundMaxParallelism < 0xffff, so
		// every key of a later key group is below the 0xffff prefix.
		err = s.db.DeleteRange(groupPrefix(nil, end+1), groupPrefix(nil, 0xffff), pebble.NoSync)
	}
	if err != nil {
		return fmt.Errorf("state: clip pebble at %s to key groups [%d, %d]: %w", s.dir, start, end, err)
	}
	return s.flush()
}

// exportSpan writes the entries of key groups [start, end] of the
// database in dir (opened read-only) into a new SST file at path, readable
// by a database of format fmv, and returns how many it wrote.
func exportSpan(dir, path string, start, end int, fmv pebble.FormatMajorVersion, log *slog.Logger) (n int, err error) {
	src, err := openPebble(dir, log, true, nil)
	if err != nil {
		return 0, fmt.Errorf("state: open restored pebble %s: %w", dir, err)
	}
	defer func() { err = errors.Join(err, src.Close()) }()
	lower, upper := spanOf(start, end)
	it, err := src.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return 0, fmt.Errorf("state: read restored pebble %s: %w", dir, err)
	}
	defer func() { err = errors.Join(err, it.Close()) }()
	f, err := vfs.Default.Create(path)
	if err != nil {
		return 0, fmt.Errorf("state: create sst: %w", err)
	}
	opts, cache := pebbleOptions(log, false, nil)
	cache.Unref()
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), opts.MakeWriterOptions(6, fmv.MaxTableFormat()))
	for it.First(); it.Valid() && err == nil; it.Next() {
		err = w.Set(it.Key(), it.Value())
		n++
	}
	// Close writes the table's index and footer and closes the file.
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("state: export key groups [%d, %d] of %s into %s: %w", start, end, dir, path, err)
	}
	return n, nil
}
