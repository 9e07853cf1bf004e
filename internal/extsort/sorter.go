package extsort

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// recordOverhead is what the memory budget charges per record besides its
// bytes: the offsets that locate it in the arena.
const recordOverhead = 32

// Sorter collects (key, value) records and returns them in key order. The
// zero value is not usable; call New.
type Sorter struct {
	dir    string
	budget int
	arena  []byte
	recs   []span
	runs   []string
	// Spills counts the runs written to disk.
	Spills int
	done   bool
}

// span locates a record in the arena: key at [off, off+klen), value right
// after it, vlen bytes.
type span struct {
	off        int
	klen, vlen int
	// prefix is the key's first 8 bytes, big-endian, zero-padded: most
	// comparisons end on it without touching the arena.
	prefix uint64
}

func keyPrefix(key []byte) uint64 {
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// New returns a sorter that spills to files in dir (os.TempDir() when
// empty) once the records it holds take more than budget bytes.
func New(dir string, budget int) *Sorter {
	if dir == "" {
		dir = os.TempDir()
	}
	return &Sorter{dir: dir, budget: max(budget, 1)}
}

// Add copies a record into the sorter, spilling a sorted run to disk when
// the memory budget is exceeded.
func (s *Sorter) Add(key, value []byte) error {
	if s.done {
		return errors.New("extsort: Add after Sorted")
	}
	off := len(s.arena)
	s.arena = append(append(s.arena, key...), value...)
	s.recs = append(s.recs, span{off: off, klen: len(key), vlen: len(value), prefix: keyPrefix(key)})
	if len(s.arena)+recordOverhead*len(s.recs) > s.budget {
		return s.spill()
	}
	return nil
}

func (s *Sorter) key(r span) []byte   { return s.arena[r.off : r.off+r.klen] }
func (s *Sorter) value(r span) []byte { return s.arena[r.off+r.klen : r.off+r.klen+r.vlen] }

func (s *Sorter) sortMemory() {
	// Records are appended in order, so their arena offsets break ties:
	// the sort is stable without the cost of a stable sort.
	slices.SortFunc(s.recs, func(a, b span) int {
		if c := cmp.Compare(a.prefix, b.prefix); c != 0 {
			return c
		}
		if c := bytes.Compare(s.key(a), s.key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.off, b.off)
	})
}

// spill writes the records in memory, sorted, to a new run file.
func (s *Sorter) spill() error {
	s.sortMemory()
	f, err := os.CreateTemp(s.dir, "weir-sort-run-*")
	if err != nil {
		return fmt.Errorf("extsort: spill: %w", err)
	}
	s.runs = append(s.runs, f.Name())
	w := bufio.NewWriterSize(f, 256<<10)
	var hdr [2 * binary.MaxVarintLen64]byte
	for _, r := range s.recs {
		n := binary.PutUvarint(hdr[:], uint64(r.klen))
		n += binary.PutUvarint(hdr[n:], uint64(r.vlen))
		if _, err = w.Write(hdr[:n]); err != nil {
			break
		}
		if _, err = w.Write(s.arena[r.off : r.off+r.klen+r.vlen]); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("extsort: spill to %s: %w", f.Name(), err)
	}
	s.Spills++
	s.arena, s.recs = s.arena[:0], s.recs[:0]
	return nil
}

// Sorted ends the input and returns the records in key order. Close the
// iterator, then the sorter.
func (s *Sorter) Sorted() (*Iterator, error) {
	if s.done {
		return nil, errors.New("extsort: Sorted called twice")
	}
	s.done = true
	s.sortMemory()
	it := &Iterator{}
	for i, name := range s.runs {
		f, err := os.Open(name)
		if err != nil {
			it.Close()
			return nil, fmt.Errorf("extsort: open run: %w", err)
		}
		c := &cursor{order: i, file: f, r: bufio.NewReaderSize(f, 256<<10)}
		it.cursors = append(it.cursors, c)
	}
	it.cursors = append(it.cursors, &cursor{order: len(s.runs), mem: s})
	for _, c := range it.cursors {
		if err := c.advance(); err != nil {
			it.Close()
			return nil, err
		}
		if c.ok {
			it.heap = append(it.heap, c)
		}
	}
	heap.Init(&it.heap)
	return it, nil
}

// Close removes the run files. It may be called at any time, also twice.
func (s *Sorter) Close() error {
	var errs []error
	for _, name := range s.runs {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("extsort: remove run: %w", err))
		}
	}
	s.runs = nil
	s.arena, s.recs = nil, nil
	return errors.Join(errs...)
}

// Iterator walks the sorted records.
type Iterator struct {
	cursors []*cursor
	heap    cursorHeap
	cur     *cursor
	key     []byte
	value   []byte
	err     error
}

// Next moves to the next record; it returns false at the end or on an
// error (see Err).
func (it *Iterator) Next() bool {
	if it.err != nil {
		return false
	}
	if it.cur != nil {
		if err := it.cur.advance(); err != nil {
			it.err = err
			return false
		}
		if it.cur.ok {
			heap.Fix(&it.heap, 0)
		} else {
			heap.Pop(&it.heap)
		}
		it.cur = nil
	}
	if len(it.heap) == 0 {
		return false
	}
	it.cur = it.heap[0]
	it.key, it.value = it.cur.key, it.cur.value
	return true
}

// Key and Value are the current record's; they are valid until the next
// call of Next.
func (it *Iterator) Key() []byte { return it.key }

// Value is the current record's value (see Key).
func (it *Iterator) Value() []byte { return it.value }

// Err is the error that stopped Next, if any.
func (it *Iterator) Err() error { return it.err }

// Close closes the run files the iterator reads.
func (it *Iterator) Close() {
	for _, c := range it.cursors {
		if c.file != nil {
			_ = c.file.Close()
			c.file = nil
		}
	}
}

// cursor reads one run: a file, or the sorter's memory.
type cursor struct {
	order      int
	file       *os.File
	r          *bufio.Reader
	mem        *Sorter
	next       int
	buf        []byte
	key, value []byte
	ok         bool
}

func (c *cursor) advance() error {
	if c.mem != nil {
		c.ok = c.next < len(c.mem.recs)
		if c.ok {
			r := c.mem.recs[c.next]
			c.key, c.value = c.mem.key(r), c.mem.value(r)
			c.next++
		}
		return nil
	}
	klen, err := binary.ReadUvarint(c.r)
	if err == io.EOF {
		c.ok = false
		return nil
	}
	if err != nil {
		return fmt.Errorf("extsort: read run: %w", err)
	}
	vlen, err := binary.ReadUvarint(c.r)
	if err != nil {
		return fmt.Errorf("extsort: read run: %w", noEOF(err))
	}
	n := int(klen + vlen)
	if cap(c.buf) < n {
		c.buf = make([]byte, n)
	}
	c.buf = c.buf[:n]
	if _, err := io.ReadFull(c.r, c.buf); err != nil {
		return fmt.Errorf("extsort: read run: %w", noEOF(err))
	}
	c.key, c.value, c.ok = c.buf[:klen], c.buf[klen:], true
	return nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// cursorHeap orders cursors by key, then by run order, which keeps the
// merge stable: earlier runs hold earlier records.
type cursorHeap []*cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].key, h[j].key); c != 0 {
		return c < 0
	}
	return h[i].order < h[j].order
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
