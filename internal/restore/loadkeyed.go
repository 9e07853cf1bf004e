package restore

import (
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/op"
)

// A subtask restoring keyed state needs, from each old subtask's stream,
// the sections of the key groups both owned: a contiguous run of key
// groups, so one contiguous run of bytes, [Offsets[first],
// Offsets[last+1]). Load plans those reads first (keyedReads.plan), then
// reads them, several at once (run), then cuts each into its key groups.
// Reading a 1/n share of every old stream, instead of every old stream
// whole, is what makes a rescale's restore cost what the subtask owns.

// keyedRead is one read of a keyed stream and the key groups cut from it.
type keyedRead struct {
	h storage.StreamHandle
	// whole: the stream is read whole (no range reader); off and n are
	// then checked against what was read.
	whole  bool
	off, n int64
	// cut receives the bytes read.
	cuts []func(data []byte) error
	data []byte
}

// keyedReads is the plan of a subtask's keyed reads, each stream range
// once.
type keyedReads struct {
	reads []*keyedRead
	byKey map[readKey]*keyedRead
}

type readKey struct {
	path   string
	off, n int64
}

// plan adds the read of the key groups o owns out of h, and the cut that
// puts their sections into res. ranged says whether the range alone can be
// read; otherwise the whole stream is read and its length checked against
// the offsets.
func (p *keyedReads) plan(res *op.Restored, o storage.OperatorRestore, h storage.KeyedStateHandle, ranged bool) error {
	n := h.KeyGroupEnd - h.KeyGroupStart + 1
	if n <= 0 || len(h.Offsets) != n {
		return fmt.Errorf("%w: key groups [%d, %d] with %d offsets", ErrCorrupt, h.KeyGroupStart, h.KeyGroupEnd, len(h.Offsets))
	}
	first, last := max(h.KeyGroupStart, o.KeyGroupStart), min(h.KeyGroupEnd, o.KeyGroupEnd)
	if first > last {
		return nil
	}
	// end returns where the section of key group kg ends, given the
	// stream's size.
	end := func(kg int, size int64) int64 {
		if i := kg - h.KeyGroupStart + 1; i < n {
			return h.Offsets[i]
		}
		return size
	}
	check := func(size int64) error {
		for kg := first; kg <= last; kg++ {
			start, e := h.Offsets[kg-h.KeyGroupStart], end(kg, size)
			if start < 0 || start > e || e > size {
				return fmt.Errorf("%w: key group %d at [%d, %d) of a %d-byte stream", ErrCorrupt, kg, start, e, size)
			}
		}
		return nil
	}
	r := &keyedRead{h: h.Stream, whole: !ranged || h.Stream.IsInline()}
	if !r.whole {
		if err := check(h.Stream.Size); err != nil {
			return err
		}
		r.off = h.Offsets[first-h.KeyGroupStart]
		r.n = end(last, h.Stream.Size) - r.off
		if r.n == 0 {
			return nil // only empty key groups
		}
	}
	r = p.add(r)
	r.cuts = append(r.cuts, func(data []byte) error {
		size := r.off + int64(len(data))
		if r.whole {
			if err := check(size); err != nil {
				return fmt.Errorf("restore uid %q: %w", o.UID, err)
			}
		}
		for kg := first; kg <= last; kg++ {
			start, e := h.Offsets[kg-h.KeyGroupStart], end(kg, size)
			if start < e {
				res.KeyGroups[kg] = data[start-r.off : e-r.off]
			}
		}
		return nil
	})
	return nil
}

// add returns the planned read equal to r, or r after planning it.
func (p *keyedReads) add(r *keyedRead) *keyedRead {
	if r.h.IsInline() || r.h.IsEmpty() {
		p.reads = append(p.reads, r)
		return r
	}
	k := readKey{r.h.Path, r.off, r.n}
	if r.whole {
		k.off, k.n = -1, -1
	}
	if prev, ok := p.byKey[k]; ok {
		return prev
	}
	if p.byKey == nil {
		p.byKey = map[readKey]*keyedRead{}
	}
	p.byKey[k] = r
	p.reads = append(p.reads, r)
	return r
}

// run performs the planned reads, at most src.Parallelism at a time, then
// cuts them. The first error wins; every read has ended when run returns.
func (p *keyedReads) run(src Sources) error {
	limit := src.Parallelism
	if limit <= 0 {
		limit = DefaultReadParallelism
	}
	errs := make([]error, len(p.reads))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, r := range p.reads {
		read := func() {
			if r.whole {
				r.data, errs[i] = src.Read(r.h)
			} else {
				r.data, errs[i] = src.ReadRange(r.h, r.off, r.n)
			}
		}
		if len(p.reads) == 1 {
			read()
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			read()
		}()
	}
	wg.Wait()
	for i, r := range p.reads {
		if errs[i] != nil {
			return errs[i]
		}
		if !r.whole && int64(len(r.data)) != r.n {
			return fmt.Errorf("%w: read %d bytes of %s at %d, want %d", ErrCorrupt, len(r.data), r.h.Path, r.off, r.n)
		}
		for _, cut := range r.cuts {
			if err := cut(r.data); err != nil {
				return err
			}
		}
	}
	return nil
}
