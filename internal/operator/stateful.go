package operator

import "github.com/weir-engine/weir/internal/op"

// StatefulHooks is the lifecycle of a user function with operator state
// (package weir's CheckpointedFunction): its Open initializes the state
// from op.Context.Restored before it opens the function, and
// SnapshotState returns the state's lists at a barrier.
type StatefulHooks interface {
	Hooks
	op.Snapshotter
}

// The Stateful operators are the stateless operators of this package with
// the operator state of their function: they add SnapshotState, which
// asks the hooks, and are otherwise the operator they embed (including
// its chaining).
type (
	// StatefulMap is a Map whose function has operator state.
	StatefulMap[T, R any] struct {
		*Map[T, R]
		state op.Snapshotter
	}
	// StatefulFlatMap is a FlatMap whose function has operator state.
	StatefulFlatMap[T, R any] struct {
		*FlatMap[T, R]
		state op.Snapshotter
	}
	// StatefulFilter is a Filter whose function has operator state.
	StatefulFilter[T any] struct {
		*Filter[T]
		state op.Snapshotter
	}
	// StatefulSink is a Sink whose function has operator state.
	StatefulSink[T any] struct {
		*Sink[T]
		state op.Snapshotter
	}
)

// NewStatefulMap returns a map of fn with operator state.
func NewStatefulMap[T, R any](fn func(T) (R, error), hooks StatefulHooks, out op.Output[R]) *StatefulMap[T, R] {
	return &StatefulMap[T, R]{Map: NewMap(fn, hooks, out), state: hooks}
}

// NewStatefulFlatMap returns a flat map of fn with operator state.
func NewStatefulFlatMap[T, R any](fn func(T, Collector[R]) error, hooks StatefulHooks, out op.Output[R]) *StatefulFlatMap[T, R] {
	return &StatefulFlatMap[T, R]{FlatMap: NewFlatMap(fn, hooks, out), state: hooks}
}

// NewStatefulFilter returns a filter of fn with operator state.
func NewStatefulFilter[T any](fn func(T) (bool, error), hooks StatefulHooks, out op.Output[T]) *StatefulFilter[T] {
	return &StatefulFilter[T]{Filter: NewFilter(fn, hooks, out), state: hooks}
}

// NewStatefulSinkOf returns a sink of inv.Invoke with operator state.
func NewStatefulSinkOf[T any](inv Invoker[T], hooks StatefulHooks) *StatefulSink[T] {
	return &StatefulSink[T]{Sink: NewSinkOf(inv, hooks), state: hooks}
}

// SnapshotState implements op.Snapshotter.
func (k *StatefulSink[T]) SnapshotState(id int64) (*op.Snapshot, error) {
	return k.state.SnapshotState(id)
}

// SnapshotState implements op.Snapshotter.
func (m *StatefulMap[T, R]) SnapshotState(id int64) (*op.Snapshot, error) {
	return m.state.SnapshotState(id)
}

// SnapshotState implements op.Snapshotter.
func (f *StatefulFlatMap[T, R]) SnapshotState(id int64) (*op.Snapshot, error) {
	return f.state.SnapshotState(id)
}

// SnapshotState implements op.Snapshotter.
func (f *StatefulFilter[T]) SnapshotState(id int64) (*op.Snapshot, error) {
	return f.state.SnapshotState(id)
}
