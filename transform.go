package weir

import (
	"fmt"
	"reflect"

	"github.com/weir-engine/weir/internal/op"
)

// Map applies f to every element.
func Map[T, R any](s DataStream[T], f func(T) (R, error)) DataStream[R] {
	return mapOperator[T, R](s, f, nil)
}

// MapWith applies fn, which may implement Opener, Finisher and Closer.
func MapWith[T, R any](s DataStream[T], fn MapFunction[T, R]) DataStream[R] {
	if isNil(fn) {
		return invalid[R](s.env, fmt.Errorf("weir: Map: nil function"))
	}
	return mapOperator[T, R](s, nil, fn)
}

// mapOperator records a map of either a func f or a function value fn.
func mapOperator[T, R any](s DataStream[T], f func(T) (R, error), fn MapFunction[T, R]) DataStream[R] {
	if err := checkFn(s, "Map", funcOr(f, fn)); err != nil {
		return invalid[R](s.env, err)
	}
	acc := s.env.accumulators
	return newOperator[T, R](s, "Map", func(out any) (any, error) {
		m := &mapOp[T, R]{fn: f, out: out.(op.Output[R])}
		if fn != nil {
			fn := instance(fn)
			m.fn, m.udf = fn.Map, udf{fn, acc}
		}
		return m, nil
	})
}

// FlatMap applies f to every element; f emits any number of results.
func FlatMap[T, R any](s DataStream[T], f func(T, Collector[R]) error) DataStream[R] {
	return flatMapOperator[T, R](s, f, nil)
}

// FlatMapWith applies fn, which may implement the lifecycle hooks.
func FlatMapWith[T, R any](s DataStream[T], fn FlatMapFunction[T, R]) DataStream[R] {
	if isNil(fn) {
		return invalid[R](s.env, fmt.Errorf("weir: FlatMap: nil function"))
	}
	return flatMapOperator[T, R](s, nil, fn)
}

func flatMapOperator[T, R any](s DataStream[T], f func(T, Collector[R]) error, fn FlatMapFunction[T, R]) DataStream[R] {
	if err := checkFn(s, "FlatMap", funcOr(f, fn)); err != nil {
		return invalid[R](s.env, err)
	}
	acc := s.env.accumulators
	return newOperator[T, R](s, "FlatMap", func(out any) (any, error) {
		m := &flatMapOp[T, R]{fn: f, out: collector[R]{out: out.(op.Output[R])}}
		if fn != nil {
			fn := instance(fn)
			m.fn, m.udf = fn.FlatMap, udf{fn, acc}
		}
		return m, nil
	})
}

// Filter keeps the elements for which f returns true.
func Filter[T any](s DataStream[T], f func(T) (bool, error)) DataStream[T] {
	return filterOperator[T](s, f, nil)
}

// FilterWith keeps the elements fn accepts; fn may implement the hooks.
func FilterWith[T any](s DataStream[T], fn FilterFunction[T]) DataStream[T] {
	if isNil(fn) {
		return invalid[T](s.env, fmt.Errorf("weir: Filter: nil function"))
	}
	return filterOperator[T](s, nil, fn)
}

func filterOperator[T any](s DataStream[T], f func(T) (bool, error), fn FilterFunction[T]) DataStream[T] {
	if err := checkFn(s, "Filter", funcOr(f, fn)); err != nil {
		return invalid[T](s.env, err)
	}
	acc := s.env.accumulators
	return newOperator[T, T](s, "Filter", func(out any) (any, error) {
		m := &filterOp[T]{fn: f, out: out.(op.Output[T])}
		if fn != nil {
			fn := instance(fn)
			m.fn, m.udf = fn.Filter, udf{fn, acc}
		}
		return m, nil
	})
}

// funcOr returns the function value when set, else the func, for nil
// checks.
func funcOr[F any](f F, fn any) any {
	if fn != nil {
		return fn
	}
	return f
}

// checkFn validates the stream and the function of an operation.
func checkFn[T any](s DataStream[T], what string, fn any) error {
	if !s.ok() {
		return fmt.Errorf("weir: %s on an invalid stream", what)
	}
	if isNil(fn) {
		return fmt.Errorf("weir: %s: nil function", what)
	}
	return nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Map, reflect.Slice, reflect.Interface, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

// chainBinding is what a Chainable operator keeps from Bind.
type chainBinding struct {
	attr    func(error) error
	forward func(int64) error
}

// Bind implements op.Chainable.
func (c *chainBinding) Bind(attr func(error) error, forward func(int64) error) {
	c.attr, c.forward = attr, forward
}

// EmitWatermark passes a watermark on, for a chained operator called
// directly as its predecessor's output.
func (c *chainBinding) EmitWatermark(wm int64) error {
	if err := c.forward(wm); err != nil {
		return c.attr(err)
	}
	return nil
}

// udfOperator gives an operator the lifecycle of its user function (none
// for a plain func); the operators embed it.
type udfOperator struct{ udf udf }

func (u *udfOperator) Open(ctx *op.Context) error { return u.udf.open(ctx) }
func (u *udfOperator) Finish() error              { return u.udf.finish() }
func (u *udfOperator) Close() error               { return u.udf.close() }

// The operators hold the user function as a func value (a method value for
// interface implementations): calling a func in generic code is a direct
// closure call, while an interface method goes through the shape
// dictionary.

type mapOp[T, R any] struct {
	fn  func(T) (R, error)
	out op.Output[R]
	udfOperator
	chainBinding
}

// Collect is ProcessElement for a predecessor that calls the operator
// directly (op.Chainable); it names the operator in its errors.
func (m *mapOp[T, R]) Collect(ts int64, v T) error {
	r, err := m.fn(v)
	if err == nil {
		err = m.out.Collect(ts, r)
	}
	if err != nil {
		return m.attr(err)
	}
	return nil
}

func (m *mapOp[T, R]) ProcessElement(ts int64, v T) error {
	r, err := m.fn(v)
	if err != nil {
		return err
	}
	return m.out.Collect(ts, r)
}

type filterOp[T any] struct {
	fn  func(T) (bool, error)
	out op.Output[T]
	udfOperator
	chainBinding
}

// Collect is ProcessElement for a direct predecessor (op.Chainable).
func (f *filterOp[T]) Collect(ts int64, v T) error {
	keep, err := f.fn(v)
	if err == nil && keep {
		err = f.out.Collect(ts, v)
	}
	if err != nil {
		return f.attr(err)
	}
	return nil
}

func (f *filterOp[T]) ProcessElement(ts int64, v T) error {
	keep, err := f.fn(v)
	if err != nil || !keep {
		return err
	}
	return f.out.Collect(ts, v)
}

type flatMapOp[T, R any] struct {
	fn  func(T, Collector[R]) error
	out collector[R]
	udfOperator
	chainBinding
}

// Collect is ProcessElement for a direct predecessor (op.Chainable).
func (f *flatMapOp[T, R]) Collect(ts int64, v T) error {
	if err := f.ProcessElement(ts, v); err != nil {
		return f.attr(err)
	}
	return nil
}

func (f *flatMapOp[T, R]) ProcessElement(ts int64, v T) error {
	f.out.ts = ts
	if err := f.fn(v, &f.out); err != nil {
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
