package operator

import "github.com/weir-engine/weir/internal/op"

// The operators hold the user function as a func value (a method value for
// interface implementations): calling a func in generic code is a direct
// closure call, while an interface method goes through the shape
// dictionary.

// Collector receives what a flat map or process function emits (package
// weir's Collector is this type).
type Collector[T any] interface {
	Collect(v T)
}

// Map applies a function to every element.
type Map[T, R any] struct {
	fn  func(T) (R, error)
	out op.Output[R]
	// batch is out when it takes batches; rs holds the results of one.
	batch op.BatchOutput[R]
	rs    []R
	UDF
	chainBinding
}

// NewMap returns a map of fn emitting to out; hooks may be nil.
func NewMap[T, R any](fn func(T) (R, error), hooks Hooks, out op.Output[R]) *Map[T, R] {
	return &Map[T, R]{fn: fn, out: out, batch: batchOf(out), UDF: UDF{hooks}}
}

// CollectBatch implements op.BatchOutput for a direct predecessor: fn runs
// over the batch, and the results go on as one batch when the output takes
// batches.
func (m *Map[T, R]) CollectBatch(ts []int64, vs []T) error {
	if m.batch == nil {
		for i, v := range vs {
			if err := m.Collect(op.TimestampAt(ts, i), v); err != nil {
				return err
			}
		}
		return nil
	}
	if len(vs) == 0 {
		return nil
	}
	if cap(m.rs) < len(vs) {
		m.rs = make([]R, len(vs))
	}
	rs := m.rs[:len(vs)]
	for i, v := range vs {
		r, err := m.fn(v)
		if err != nil {
			// The results before the failing element go on first, as
			// they would have one at a time.
			if i > 0 {
				if err := m.batch.CollectBatch(tsPrefix(ts, i), rs[:i]); err != nil {
					return m.attr(err)
				}
			}
			return m.attr(err)
		}
		rs[i] = r
	}
	if err := m.batch.CollectBatch(ts, rs); err != nil {
		return m.attr(err)
	}
	return nil
}

// Collect is ProcessElement for a predecessor that calls the operator
// directly (op.Chainable); it names the operator in its errors.
func (m *Map[T, R]) Collect(ts int64, v T) error {
	r, err := m.fn(v)
	if err == nil {
		err = m.out.Collect(ts, r)
	}
	if err != nil {
		return m.attr(err)
	}
	return nil
}

// ProcessElement implements op.Input.
func (m *Map[T, R]) ProcessElement(ts int64, v T) error {
	r, err := m.fn(v)
	if err != nil {
		return err
	}
	return m.out.Collect(ts, r)
}

// Filter keeps the elements for which a function returns true.
type Filter[T any] struct {
	fn    func(T) (bool, error)
	out   op.Output[T]
	batch op.BatchOutput[T] // out, when it takes batches
	UDF
	chainBinding
}

// NewFilter returns a filter of fn emitting to out; hooks may be nil.
func NewFilter[T any](fn func(T) (bool, error), hooks Hooks, out op.Output[T]) *Filter[T] {
	return &Filter[T]{fn: fn, out: out, batch: batchOf(out), UDF: UDF{hooks}}
}

// CollectBatch implements op.BatchOutput for a direct predecessor: the
// batch is compacted in place to the elements fn keeps, which go on as one
// batch when the output takes batches.
func (f *Filter[T]) CollectBatch(ts []int64, vs []T) error {
	if f.batch == nil {
		for i, v := range vs {
			if err := f.Collect(op.TimestampAt(ts, i), v); err != nil {
				return err
			}
		}
		return nil
	}
	n := 0
	for i, v := range vs {
		keep, err := f.fn(v)
		if err != nil {
			// The elements kept before the failing one go on first.
			if n > 0 {
				if err := f.batch.CollectBatch(tsPrefix(ts, n), vs[:n]); err != nil {
					return f.attr(err)
				}
			}
			return f.attr(err)
		}
		if keep {
			vs[n] = v
			if ts != nil {
				ts[n] = ts[i]
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if err := f.batch.CollectBatch(tsPrefix(ts, n), vs[:n]); err != nil {
		return f.attr(err)
	}
	return nil
}

// Collect is ProcessElement for a direct predecessor (op.Chainable).
func (f *Filter[T]) Collect(ts int64, v T) error {
	keep, err := f.fn(v)
	if err == nil && keep {
		err = f.out.Collect(ts, v)
	}
	if err != nil {
		return f.attr(err)
	}
	return nil
}

// ProcessElement implements op.Input.
func (f *Filter[T]) ProcessElement(ts int64, v T) error {
	keep, err := f.fn(v)
	if err != nil || !keep {
		return err
	}
	return f.out.Collect(ts, v)
}

// FlatMap applies a function that emits any number of results.
type FlatMap[T, R any] struct {
	fn  func(T, Collector[R]) error
	out collector[R]
	UDF
	chainBinding
}

// NewFlatMap returns a flat map of fn emitting to out; hooks may be nil.
func NewFlatMap[T, R any](fn func(T, Collector[R]) error, hooks Hooks, out op.Output[R]) *FlatMap[T, R] {
	return &FlatMap[T, R]{fn: fn, out: collector[R]{out: out, batch: batchOf(out)}, UDF: UDF{hooks}}
}

// CollectBatch implements op.BatchOutput for a direct predecessor: fn runs
// over the batch, and what it emits goes on in batches (of up to maxBatch
// elements) when the output takes batches.
func (f *FlatMap[T, R]) CollectBatch(ts []int64, vs []T) error {
	c := &f.out
	if c.batch == nil {
		for i, v := range vs {
			if err := f.Collect(op.TimestampAt(ts, i), v); err != nil {
				return err
			}
		}
		return nil
	}
	c.buffering, c.withTS = true, ts != nil
	for i, v := range vs {
		c.ts = op.TimestampAt(ts, i)
		if err := f.fn(v, c); err != nil {
			// What it emitted before goes on first.
			c.flush()
			c.buffering = false
			return f.attr(err)
		}
		if c.err != nil {
			break
		}
	}
	c.flush()
	c.buffering = false
	if err := c.takeErr(); err != nil {
		return f.attr(err)
	}
	return nil
}

// Collect is ProcessElement for a direct predecessor (op.Chainable).
func (f *FlatMap[T, R]) Collect(ts int64, v T) error {
	if err := f.ProcessElement(ts, v); err != nil {
		return f.attr(err)
	}
	return nil
}

// ProcessElement implements op.Input.
func (f *FlatMap[T, R]) ProcessElement(ts int64, v T) error {
	f.out.ts = ts
	if err := f.fn(v, &f.out); err != nil {
		return err
	}
	return f.out.takeErr()
}

// Finish finishes the user function and reports the first downstream error
// of what it emitted meanwhile: a function may still emit in Finish (through
// the Collector it was given), as FLIP-147 defines.
func (f *FlatMap[T, R]) Finish() error {
	if err := f.UDF.Finish(); err != nil {
		return err
	}
	return f.out.takeErr()
}

// collector adapts an op.Output to the user's Collector. Collect cannot
// return an error, so the first downstream error is kept and reported
// after the user function returns; later elements are dropped.
//
// On the batch path (buffering, while FlatMap.CollectBatch runs) the
// elements wait in bvs (and their timestamps in bts, when the input batch
// had timestamps) and go on to batch in one call.
type collector[T any] struct {
	out op.Output[T]
	ts  int64
	err error

	batch     op.BatchOutput[T] // out, when it takes batches
	buffering bool
	withTS    bool
	bts       []int64
	bvs       []T
}

func (c *collector[T]) Collect(v T) {
	if c.buffering {
		if c.err != nil {
			return
		}
		c.bvs = append(c.bvs, v)
		if c.withTS {
			c.bts = append(c.bts, c.ts)
		}
		if len(c.bvs) >= maxBatch {
			c.flush()
		}
		return
	}
	if c.err == nil {
		c.err = c.out.Collect(c.ts, v)
	}
}

// flush passes the buffered elements on as one batch.
func (c *collector[T]) flush() {
	if len(c.bvs) > 0 && c.err == nil {
		var ts []int64
		if c.withTS {
			ts = c.bts
		}
		c.err = c.batch.CollectBatch(ts, c.bvs)
	}
	c.bvs, c.bts = c.bvs[:0], c.bts[:0]
}

func (c *collector[T]) takeErr() error {
	err := c.err
	c.err = nil
	return err
}
