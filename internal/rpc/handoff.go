package rpc

import "sync"

// Handoff holds values that a message refers to by id and that only a
// receiver in the same process can take: the process-local side of the
// "embedded" references (an error's identity). Each value is taken at most once; ids are never reused, so a
// reference from another process (or a taken one) finds nothing.
type Handoff struct {
	mu struct {
		sync.Mutex
		next   uint64
		values map[uint64]any
	}
}

// process is the Handoff of this process.
var process Handoff

// Put keeps v and returns its id (never 0).
func (h *Handoff) Put(v any) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.mu.values == nil {
		h.mu.values = map[uint64]any{}
	}
	h.mu.next++
	h.mu.values[h.mu.next] = v
	return h.mu.next
}

// Take returns the value kept under id and forgets it.
func (h *Handoff) Take(id uint64) (any, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.mu.values[id]
	delete(h.mu.values, id)
	return v, ok
}

// Len is the number of values kept.
func (h *Handoff) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.mu.values)
}

// PutLocal keeps v in this process's Handoff.
func PutLocal(v any) uint64 { return process.Put(v) }

// TakeLocal takes the value id refers to from this process's Handoff.
func TakeLocal(id uint64) (any, bool) { return process.Take(id) }

// PendingLocal is the number of values this process's Handoff keeps: zero
// once every embedded reference sent was taken (tests check nothing leaks).
func PendingLocal() int { return process.Len() }
