package storage

import (
	"encoding/binary"
	"fmt"
	"math"
)

// enc appends the primitives of the metadata format to a buffer.
type enc struct{ b []byte }

func (e *enc) byte(v byte)        { e.b = append(e.b, v) }
func (e *enc) uvarint(v uint64)   { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) varint(v int64)     { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) u32(v uint32)       { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) int(v int)          { e.uvarint(uint64(v)) } // callers validated v >= 0
func (e *enc) count(n int)        { e.uvarint(uint64(n)) }
func (e *enc) str(s string)       { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) bytes(p []byte)     { e.uvarint(uint64(len(p))); e.b = append(e.b, p...) }
func (e *enc) flags(bits ...bool) { e.byte(packFlags(bits...)) }

// record appends fn's encoding prefixed by its length, so that a reader can
// skip fields appended to the record by a later minor version.
func (e *enc) record(fn func(*enc)) {
	var sub enc
	fn(&sub)
	e.bytes(sub.b)
}

func packFlags(bits ...bool) byte {
	var f byte
	for i, b := range bits {
		if b {
			f |= 1 << i
		}
	}
	return f
}

// dec reads the primitives of the metadata format. The first error sticks:
// every later read returns a zero value, so decoding code can read a whole
// record and check err once. Every length and count is checked against the
// bytes left before anything is allocated or sliced, which is what keeps a
// corrupt input from panicking or allocating more than its own size.
type dec struct {
	b    []byte
	off  int
	base int // offset of b[0] in the whole file, for error messages
	// minor is the file's minor version: fields a minor version appended
	// to a record are read only from files of that minor or a later one.
	minor uint16
	// lenient is set when the file's minor version is newer than this
	// build's: unknown sections, trailing record bytes and unknown flag
	// bits are then extensions to skip, not corruption.
	lenient bool
	err     error
}

func (d *dec) failf(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: at byte %d: %s", ErrCorrupt, d.base+d.off, fmt.Sprintf(format, args...))
	}
}

func (d *dec) badVarint(n int) {
	if n == 0 {
		d.failf("unexpected end of record in a varint")
	} else {
		d.failf("varint overflows 64 bits")
	}
}

func (d *dec) left() int { return len(d.b) - d.off }

func (d *dec) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.left() < 1 {
		d.failf("unexpected end of record")
		return 0
	}
	v := d.b[d.off]
	d.off++
	return v
}

func (d *dec) u32() uint32 {
	if d.err != nil {
		return 0
	}
	if d.left() < 4 {
		d.failf("unexpected end of record")
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b[d.off:])
	d.off += 4
	return v
}

func (d *dec) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.badVarint(n)
		return 0
	}
	d.off += n
	return v
}

func (d *dec) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		d.badVarint(n)
		return 0
	}
	d.off += n
	return v
}

// int reads a non-negative int of at most limit.
func (d *dec) int(what string, limit uint64) int {
	v := d.uvarint()
	if v > limit {
		d.failf("%s %d exceeds %d", what, v, limit)
		return 0
	}
	return int(v)
}

// int64 reads a non-negative int64.
func (d *dec) int64(what string) int64 {
	return int64(d.int(what, math.MaxInt64))
}

// length reads a byte length or element count: every element takes at
// least one byte, so it can never exceed what is left.
func (d *dec) length(what string) int {
	n := d.uvarint()
	if d.err == nil && n > uint64(d.left()) {
		d.failf("%s %d exceeds the %d bytes left", what, n, d.left())
		return 0
	}
	return int(n)
}

func (d *dec) raw(n int) []byte {
	p := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return p
}

func (d *dec) str() string {
	n := d.length("string length")
	if d.err != nil {
		return ""
	}
	return string(d.raw(n))
}

// bytes returns a copy of a byte field; an empty field decodes to nil.
func (d *dec) bytes() []byte {
	n := d.length("byte length")
	if d.err != nil || n == 0 {
		return nil
	}
	return append([]byte(nil), d.raw(n)...)
}

// flags reads a flag byte with n defined bits.
func (d *dec) flags(n int) []bool {
	f := d.byte()
	if f>>n != 0 && !d.lenient {
		d.failf("unknown flag bits %08b", f)
	}
	bits := make([]bool, n)
	for i := range bits {
		bits[i] = f&(1<<i) != 0
	}
	return bits
}

// record reads a length-prefixed record with fn, then checks that fn used
// all of it (or skips the rest when lenient).
func (d *dec) record(what string, fn func(*dec)) {
	n := d.length(what + " length")
	if d.err != nil {
		return
	}
	sub := &dec{b: d.raw(n), base: d.base + d.off - n, minor: d.minor, lenient: d.lenient}
	fn(sub)
	if sub.err == nil && sub.left() != 0 && !sub.lenient {
		sub.failf("%d unexpected bytes at the end of the %s", sub.left(), what)
	}
	if sub.err != nil {
		d.err = sub.err
	}
}
