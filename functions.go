package weir

import (
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator"
)

// Collector receives what a FlatMap or process function emits.
type Collector[T any] = operator.Collector[T]

// MapFunction transforms one element into one element.
type MapFunction[T, R any] interface {
	Map(v T) (R, error)
}

// FlatMapFunction transforms one element into zero or more.
type FlatMapFunction[T, R any] interface {
	FlatMap(v T, out Collector[R]) error
}

// FilterFunction keeps the elements for which it returns true.
type FilterFunction[T any] interface {
	Filter(v T) (bool, error)
}

// ReduceFunction combines two elements into one.
type ReduceFunction[T any] interface {
	Reduce(a, b T) (T, error)
}

// Lifecycle hooks a user function may implement, called on the subtask's
// goroutine as FLIP-147 defines.
type (
	// Opener is called before the first element.
	Opener interface {
		Open(rc *RuntimeContext) error
	}
	// Finisher is called once the input ended, before the final checkpoint.
	Finisher interface{ Finish() error }
	// Closer is called last, always, also after a failure: release
	// resources here.
	Closer interface{ Close() error }
)

// RuntimeContext tells a function where it runs.
type RuntimeContext struct {
	// OperatorName is the name of the operator the function belongs to.
	OperatorName string
	// SubtaskIndex (from 0) and Parallelism identify the subtask.
	SubtaskIndex, Parallelism int
	// MaxParallelism is the number of key groups.
	MaxParallelism int
	// Attempt is the job's restart generation: 0 in the first run, one
	// more after each restart.
	Attempt int
	// Logger is scoped to the operator and subtask.
	Logger *slog.Logger

	acc *accumulators
}

func newRuntimeContext(ctx *op.Context, acc *accumulators) *RuntimeContext {
	return &RuntimeContext{
		OperatorName: ctx.Name, SubtaskIndex: ctx.SubtaskIndex, Parallelism: ctx.Parallelism,
		MaxParallelism: ctx.MaxParallelism, Attempt: ctx.Attempt, Logger: ctx.Logger, acc: acc,
	}
}

// Counter returns the job-wide counter with the given name; Result reports
// its sum over all subtasks.
func (rc *RuntimeContext) Counter(name string) *Counter { return rc.acc.counter(name) }

// Counter is an accumulator that sums.
type Counter struct{ v atomic.Int64 }

// Add adds n.
func (c *Counter) Add(n int64) { c.v.Add(n) }

// Value returns the current sum.
func (c *Counter) Value() int64 { return c.v.Load() }

type accumulators struct {
	mu       sync.Mutex
	counters map[string]*Counter
}

func newAccumulators() *accumulators { return &accumulators{counters: make(map[string]*Counter)} }

func (a *accumulators) counter(name string) *Counter {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.counters[name]
	if !ok {
		c = &Counter{}
		a.counters[name] = c
	}
	return c
}

func (a *accumulators) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.counters = make(map[string]*Counter)
}

func (a *accumulators) snapshot() map[string]int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]int64, len(a.counters))
	for k, c := range a.counters {
		out[k] = c.Value()
	}
	return out
}

// udf drives the optional lifecycle hooks of a user function: it is the
// operator.Hooks of the operator that runs it.
type udf struct {
	fn  any
	acc *accumulators
}

// Open calls the function's Open, if it has one.
func (u udf) Open(ctx *op.Context) error {
	if o, ok := u.fn.(Opener); ok {
		return o.Open(newRuntimeContext(ctx, u.acc))
	}
	return nil
}

// Finish calls the function's Finish, if it has one.
func (u udf) Finish() error {
	if f, ok := u.fn.(Finisher); ok {
		return f.Finish()
	}
	return nil
}

// Close calls the function's Close, if it has one.
func (u udf) Close() error {
	if c, ok := u.fn.(Closer); ok {
		return c.Close()
	}
	return nil
}

// reduceFunc adapts a plain func to ReduceFunction.
type reduceFunc[T any] func(a, b T) (T, error)

func (f reduceFunc[T]) Reduce(a, b T) (T, error) { return f(a, b) }

// instance returns the function value a subtask uses. Flink gives every
// subtask its own deserialized copy of a function; Weir does the same for a
// function that is a pointer to a struct: each subtask gets a shallow copy,
// so fields set in Open (state handles, buffers) belong to one subtask,
// while pointers, maps and channels set before the job started are shared.
// Other values (funcs, non-pointer structs) are used as they are.
func instance[F any](fn F) F {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return fn
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	out, ok := c.Interface().(F)
	if !ok {
		return fn
	}
	return out
}
