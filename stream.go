package weir

import (
	"fmt"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// DataStream is a stream of elements of type T. It is a handle on the
// operation that produces it: the methods that configure that operation
// (Name, UID, SetParallelism, ...) change it and return the same stream.
type DataStream[T any] struct {
	env *Env
	t   *graph.Transformation
}

// Env returns the program the stream belongs to.
func (s DataStream[T]) Env() *Env { return s.env }

// Name sets the operation's display name (logs, metrics, errors).
func (s DataStream[T]) Name(name string) DataStream[T] {
	if s.ok() {
		s.t.Name = name
	}
	return s
}

// UID sets the operation's stable id; state in savepoints is matched to
// operators by it. Set it on every stateful operator of a long-running job.
func (s DataStream[T]) UID(uid string) DataStream[T] {
	if s.ok() {
		if uid == "" {
			s.env.fail(fmt.Errorf("weir: empty uid for %v", s.t))
		}
		s.t.UID = uid
	}
	return s
}

// SetParallelism sets how many subtasks run the operation.
func (s DataStream[T]) SetParallelism(n int) DataStream[T] {
	if s.ok() {
		if n < 1 {
			s.env.fail(fmt.Errorf("weir: parallelism %d of %v must be at least 1", n, s.t))
			return s
		}
		if s.t.Kind != graph.KindSource && s.t.Kind != graph.KindOperator {
			s.env.fail(fmt.Errorf("weir: cannot set the parallelism of %v, which is not an operator", s.t))
			return s
		}
		s.t.Parallelism = n
	}
	return s
}

// SetMaxParallelism sets the operation's number of key groups.
func (s DataStream[T]) SetMaxParallelism(n int) DataStream[T] {
	if s.ok() {
		if n < 1 {
			s.env.fail(fmt.Errorf("weir: max parallelism %d of %v must be at least 1", n, s.t))
			return s
		}
		s.t.MaxParallelism = n
	}
	return s
}

// DisableChaining runs the operation in a task of its own.
func (s DataStream[T]) DisableChaining() DataStream[T] {
	if s.ok() {
		s.t.Chaining = graph.ChainNever
	}
	return s
}

// StartNewChain starts a new chain at this operation.
func (s DataStream[T]) StartNewChain() DataStream[T] {
	if s.ok() {
		s.t.Chaining = graph.ChainHead
	}
	return s
}

// Rebalance distributes the stream round-robin over the next operation's
// subtasks.
func (s DataStream[T]) Rebalance() DataStream[T] { return s.partition(graph.Rebalance, "rebalance") }

// Rescale distributes round-robin over a subset of the next operation's
// subtasks (a pointwise exchange, cheaper than Rebalance).
func (s DataStream[T]) Rescale() DataStream[T] { return s.partition(graph.Rescale, "rescale") }

// Broadcast sends every element to every subtask of the next operation.
func (s DataStream[T]) Broadcast() DataStream[T] { return s.partition(graph.Broadcast, "broadcast") }

// Forward keeps elements in the same subtask index; the next operation must
// have the same parallelism.
func (s DataStream[T]) Forward() DataStream[T] { return s.partition(graph.Forward, "forward") }

// Global sends every element to the first subtask of the next operation.
func (s DataStream[T]) Global() DataStream[T] { return s.partition(graph.Global, "global") }

func (s DataStream[T]) partition(kind graph.PartitionKind, name string) DataStream[T] {
	if !s.ok() {
		return s
	}
	return derive[T](s.env, &graph.Transformation{
		Kind: graph.KindPartition, Name: name, Inputs: []*graph.Transformation{s.t},
		OutType: s.t.OutType, Partitioner: graph.Partitioner{Kind: kind},
	})
}

// Union merges streams of the same type into one.
func Union[T any](first DataStream[T], others ...DataStream[T]) DataStream[T] {
	if !first.ok() {
		return first
	}
	ins := []*graph.Transformation{first.t}
	for _, o := range others {
		if !o.ok() {
			first.env.fail(fmt.Errorf("weir: union with an invalid stream"))
			return first
		}
		if o.env != first.env {
			first.env.fail(fmt.Errorf("weir: union of streams from different programs"))
			return first
		}
		ins = append(ins, o.t)
	}
	return derive[T](first.env, &graph.Transformation{Kind: graph.KindUnion, Name: "union", Inputs: ins, OutType: first.t.OutType})
}

// ok reports whether the stream can be used; a zero DataStream cannot.
func (s DataStream[T]) ok() bool { return s.env != nil && s.t != nil }

// derive records t and returns its stream.
func derive[T any](env *Env, t *graph.Transformation) DataStream[T] {
	env.add(t)
	return DataStream[T]{env: env, t: t}
}

// newOperator records a one-input operator of s producing R.
func newOperator[T, R any](s DataStream[T], name string, factory graph.Factory) DataStream[R] {
	return derive[R](s.env, &graph.Transformation{
		Kind: graph.KindOperator, Name: name, Inputs: []*graph.Transformation{s.t},
		OutType: typeinfo.New[R](), Factory: factory,
	})
}

// invalid returns a stream for a failed construction; the error is recorded
// in env and Execute will return it.
func invalid[R any](env *Env, err error) DataStream[R] {
	if env != nil {
		env.fail(err)
	}
	return DataStream[R]{env: env}
}
