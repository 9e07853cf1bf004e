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
	UDF
	chainBinding
}

// NewMap returns a map of fn emitting to out; hooks may be nil.
func NewMap[T, R any](fn func(T) (R, error), hooks Hooks, out op.Output[R]) *Map[T, R] {
	return &Map[T, R]{fn: fn, out: out, UDF: UDF{hooks}}
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
	fn  func(T) (bool, error)
	out op.Output[T]
	UDF
	chainBinding
}

// NewFilter returns a filter of fn emitting to out; hooks may be nil.
func NewFilter[T any](fn func(T) (bool, error), hooks Hooks, out op.Output[T]) *Filter[T] {
	return &Filter[T]{fn: fn, out: out, UDF: UDF{hooks}}
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
	return &FlatMap[T, R]{fn: fn, out: collector[R]{out: out}, UDF: UDF{hooks}}
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
type collector[T any] struct {
	out op.Output[T]
	ts  int64
	err error
}

func (c *collector[T]) Collect(v T) {
	if c.err == nil {
		c.err = c.out.Collect(c.ts, v)
	}
}

func (c *collector[T]) takeErr() error {
	err := c.err
	c.err = nil
	return err
}
