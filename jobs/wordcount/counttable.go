package wordcount

import (
	"hash/maphash"
	"iter"
	"strings"
)

// inlineWord is the longest word a countTable slot holds itself.
const inlineWord = 22

// countSlot is one slot of a countTable: a word of up to inlineWord bytes,
// its length plus one (0: the slot is empty) and its count. 32 bytes, so
// two slots share a cache line and none straddles two.
type countSlot struct {
	word  [inlineWord]byte
	n     uint8
	_     uint8
	count int64
}

// countTable counts words, as a map[string]int64 would. Its slots hold
// short words and their counts themselves (open addressing, linear
// probing), so counting a word that is there reads and writes one cache
// line: a Go map's string keys point elsewhere, and counting a word there
// reads its group's control word, its slot and the key's bytes, three
// places in memory that a count of a large vocabulary finds cold. Longer
// words go to a Go map.
type countTable struct {
	slots []countSlot // a power of two in length, at most three quarters full
	used  int
	long  map[string]int64
	seed  maphash.Seed
}

// newCountTable returns an empty table.
func newCountTable() *countTable {
	return &countTable{slots: make([]countSlot, 1024), long: map[string]int64{}, seed: maphash.MakeSeed()}
}

// add counts n more of w. The table keeps no reference to w.
func (t *countTable) add(w string, n int64) {
	if len(w) > inlineWord {
		if _, ok := t.long[w]; !ok {
			w = strings.Clone(w) // not the line it came from
		}
		t.long[w] += n
		return
	}
	mask := uint64(len(t.slots) - 1)
	for p := maphash.String(t.seed, w) & mask; ; p = (p + 1) & mask {
		s := &t.slots[p]
		switch {
		case int(s.n) == len(w)+1 && string(s.word[:len(w)]) == w:
			s.count += n
			return
		case s.n == 0:
			if 4*(t.used+1) > 3*len(t.slots) {
				t.grow()
				t.add(w, n)
				return
			}
			copy(s.word[:], w)
			s.n, s.count = uint8(len(w)+1), n
			t.used++
			return
		}
	}
}

// grow doubles the slots and places every word again.
func (t *countTable) grow() {
	old := t.slots
	t.slots = make([]countSlot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for k := range old {
		o := &old[k]
		if o.n == 0 {
			continue
		}
		p := maphash.Bytes(t.seed, o.word[:o.n-1]) & mask
		for t.slots[p].n != 0 {
			p = (p + 1) & mask
		}
		t.slots[p] = *o
	}
}

// len is the number of words counted.
func (t *countTable) len() int { return t.used + len(t.long) }

// all yields every word and its count, in no particular order. The words
// are new strings.
func (t *countTable) all() iter.Seq2[string, int64] {
	return func(yield func(string, int64) bool) {
		for k := range t.slots {
			if s := &t.slots[k]; s.n != 0 && !yield(string(s.word[:s.n-1]), s.count) {
				return
			}
		}
		for w, n := range t.long {
			if !yield(w, n) {
				return
			}
		}
	}
}

// reset forgets every count and keeps the table's room.
func (t *countTable) reset() {
	if t.used > 0 {
		clear(t.slots)
	}
	clear(t.long)
	t.used = 0
}
