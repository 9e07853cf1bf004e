package queries

import (
	"iter"
	"math/bits"
)

// idCounts counts per int64 id, as a map[int64]int64 would, for a local
// count that adds one to an id per event: an open-addressing table (linear
// probing, at most half full) whose slots hold the id and its count, found
// by a multiplicative hash of the id. Adding costs a multiply and, mostly,
// one slot read; a Go map's assignment costs several times that. A count
// of zero marks an empty slot, so adding zero adds nothing.
type idCounts struct {
	slots []idCount // a power of two in length
	shift uint      // 64 - log2(len(slots))
	n     int
}

// idCount is one slot of an idCounts.
type idCount struct {
	id, count int64
}

// newIDCounts returns an empty table.
func newIDCounts() *idCounts {
	const size = 64
	return &idCounts{slots: make([]idCount, size), shift: uint(64 - bits.TrailingZeros(size))}
}

// home is the first slot of id's probe sequence: Fibonacci hashing, which
// spreads sequential ids (Nexmark's) over the table.
func (c *idCounts) home(id int64) int {
	return int(uint64(id) * 0x9E3779B97F4A7C15 >> c.shift)
}

// add adds n to id's count.
func (c *idCounts) add(id, n int64) {
	if n == 0 {
		return
	}
	mask := len(c.slots) - 1
	for i := c.home(id); ; i = (i + 1) & mask {
		s := &c.slots[i]
		switch {
		case s.count != 0 && s.id == id:
			s.count += n
			return
		case s.count == 0:
			if 2*(c.n+1) > len(c.slots) {
				c.grow()
				c.add(id, n)
				return
			}
			*s = idCount{id: id, count: n}
			c.n++
			return
		}
	}
}

// grow doubles the slots and places every count again.
func (c *idCounts) grow() {
	old := c.slots
	c.slots, c.shift = make([]idCount, 2*len(old)), c.shift-1
	mask := len(c.slots) - 1
	for _, s := range old {
		if s.count == 0 {
			continue
		}
		i := c.home(s.id)
		for c.slots[i].count != 0 {
			i = (i + 1) & mask
		}
		c.slots[i] = s
	}
}

// len is the number of ids counted.
func (c *idCounts) len() int { return c.n }

// all yields every id and its count, in no particular order.
func (c *idCounts) all() iter.Seq2[int64, int64] {
	return func(yield func(int64, int64) bool) {
		for _, s := range c.slots {
			if s.count != 0 && !yield(s.id, s.count) {
				return
			}
		}
	}
}

// reset forgets every count and keeps the table's room.
func (c *idCounts) reset() {
	if c.n > 0 {
		clear(c.slots)
		c.n = 0
	}
}
