package weir

import (
	"fmt"
	"reflect"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator"
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
		if fn != nil {
			fn := instance(fn)
			if h, ok := statefulHooks(fn, acc); ok {
				return operator.NewStatefulMap(fn.Map, h, out.(op.Output[R])), nil
			}
			return operator.NewMap(fn.Map, udf{fn, acc}, out.(op.Output[R])), nil
		}
		return operator.NewMap(f, nil, out.(op.Output[R])), nil
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
		if fn != nil {
			fn := instance(fn)
			if h, ok := statefulHooks(fn, acc); ok {
				return operator.NewStatefulFlatMap(fn.FlatMap, h, out.(op.Output[R])), nil
			}
			return operator.NewFlatMap(fn.FlatMap, udf{fn, acc}, out.(op.Output[R])), nil
		}
		return operator.NewFlatMap(f, nil, out.(op.Output[R])), nil
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
		if fn != nil {
			fn := instance(fn)
			if h, ok := statefulHooks(fn, acc); ok {
				return operator.NewStatefulFilter(fn.Filter, h, out.(op.Output[T])), nil
			}
			return operator.NewFilter(fn.Filter, udf{fn, acc}, out.(op.Output[T])), nil
		}
		return operator.NewFilter(f, nil, out.(op.Output[T])), nil
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
