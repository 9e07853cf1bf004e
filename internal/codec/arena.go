package codec

import "unsafe"

// arena is where a BatchDecoder copies the strings and byte slices of the
// values it decodes, so that a batch of values costs one allocation for all
// of them rather than one per field. Bytes below len(chunk) have been handed
// out and are never written again (strings must not change); a chunk that
// runs out is dropped, not reused, and stays alive as long as any value
// decoded into it does.
type arena struct {
	chunk []byte
	size  int // the size of the next chunk, at least
}

// reserve makes the next chunk, when one is needed, at least size bytes.
func (a *arena) reserve(size int) { a.size = size }

// alloc returns n fresh bytes (n > 0) whose capacity ends at their length,
// so that appending to one value's slice cannot overwrite another's bytes.
func (a *arena) alloc(n int) []byte {
	if cap(a.chunk)-len(a.chunk) < n {
		a.chunk = make([]byte, 0, max(a.size, n))
	}
	start := len(a.chunk)
	a.chunk = a.chunk[:start+n]
	return a.chunk[start : start+n : start+n]
}

// string returns b as a string that does not alias b: a copy in the arena,
// or a string of its own when a is nil.
func (a *arena) string(b []byte) string {
	if a == nil || len(b) == 0 {
		return string(b)
	}
	dst := a.alloc(len(b))
	copy(dst, b)
	return unsafe.String(&dst[0], len(dst))
}

// bytes returns a copy of b (never nil), in the arena unless a is nil.
func (a *arena) bytes(b []byte) []byte {
	if a == nil || len(b) == 0 {
		c := make([]byte, len(b))
		copy(c, b)
		return c
	}
	dst := a.alloc(len(b))
	copy(dst, b)
	return dst
}
