package weir

import (
	"errors"
	"fmt"
	"iter"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/broadcastop"
	"github.com/weir-engine/weir/internal/operator/keyedop"
	"github.com/weir-engine/weir/internal/state/opstate"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// The broadcast state pattern (Flink's): a low-volume stream of rules or
// configuration is broadcast to every subtask of an operator, which keeps
// it in broadcast state and applies it to the elements of another stream.

// MapStateDescriptor names a broadcast map state from K to V.
type MapStateDescriptor[K comparable, V any] struct{ name string }

// NewMapStateDescriptor returns the descriptor of the map state called
// name.
func NewMapStateDescriptor[K comparable, V any](name string) MapStateDescriptor[K, V] {
	return MapStateDescriptor[K, V]{name: name}
}

// Name returns the state's name.
func (d MapStateDescriptor[K, V]) Name() string { return d.name }

func (d MapStateDescriptor[K, V]) broadcastStateName() string { return d.name }

// BroadcastStateDescriptor is a MapStateDescriptor of any types, as
// Broadcast declares them.
type BroadcastStateDescriptor interface{ broadcastStateName() string }

// BroadcastStream is a stream sent to every subtask of the operator it
// is connected to, with the broadcast states that operator keeps.
type BroadcastStream[T any] struct {
	s     DataStream[T]
	names []string
	err   error
}

// Broadcast broadcasts s, declaring the broadcast states of the operators
// it will be connected to (ConnectBroadcast, ConnectKeyedBroadcast).
func Broadcast[T any](s DataStream[T], descriptors ...BroadcastStateDescriptor) BroadcastStream[T] {
	b := BroadcastStream[T]{s: s}
	if !s.ok() {
		b.err = errors.New("weir: Broadcast of an invalid stream")
		return b
	}
	if len(descriptors) == 0 {
		b.err = errors.New("weir: Broadcast: no broadcast state declared (use DataStream.Broadcast for a plain broadcast)")
		return b
	}
	for _, d := range descriptors {
		name := d.broadcastStateName()
		if name == "" {
			b.err = errors.New("weir: Broadcast: a broadcast state needs a name")
			return b
		}
		for _, n := range b.names {
			if n == name {
				b.err = fmt.Errorf("weir: Broadcast: broadcast state %q declared twice", name)
				return b
			}
		}
		b.names = append(b.names, name)
	}
	b.s = s.Broadcast()
	return b
}

// ReadOnlyBroadcastContext is what a BroadcastProcessFunction sees of an
// element of the non-broadcast stream: its timestamp (Timestamp), the
// outputs (Collect, CollectWithTimestamp, Output for side outputs), the
// time, and the broadcast state to read (GetReadOnlyBroadcastState).
type ReadOnlyBroadcastContext[R any] = broadcastop.ReadOnlyContext[R]

// BroadcastContext is what a BroadcastProcessFunction sees of a broadcast
// element: a ReadOnlyBroadcastContext whose broadcast state it may write
// (GetBroadcastState).
type BroadcastContext[R any] = broadcastop.Context[R]

// KeyedReadOnlyBroadcastContext is what a KeyedBroadcastProcessFunction
// sees of an element of the keyed stream: a KeyedContext (key, keyed
// state, timers, outputs) that may also read the broadcast state.
type KeyedReadOnlyBroadcastContext[K comparable, R any] = keyedop.BroadcastReadContext[K, R]

// KeyedBroadcastContext is what a KeyedBroadcastProcessFunction sees of a
// broadcast element: its timestamp, the outputs, the broadcast state to
// read and write, and ApplyToKeyedState to visit the keyed state of every
// key of the subtask. There is no current key and no timer service.
type KeyedBroadcastContext[K comparable, R any] = keyedop.BroadcastContext[K, R]

// BroadcastProcessFunction processes a non-keyed stream connected to a
// broadcast stream. It may implement Opener, Finisher and Closer.
//
// Every subtask sees every broadcast element; to keep the broadcast
// state the same on all of them (a restore at another parallelism gives
// every subtask one of the copies), change it only as a function of the
// broadcast elements.
type BroadcastProcessFunction[T, B, R any] interface {
	ProcessElement(ctx *ReadOnlyBroadcastContext[R], v T) error
	ProcessBroadcastElement(ctx *BroadcastContext[R], v B) error
}

// KeyedBroadcastProcessFunction processes a keyed stream connected to a
// broadcast stream, with keyed state and timers for the keyed side. It may
// implement KeyedOpener or Opener, TimerFunction (whose context has no
// broadcast state), Finisher and Closer.
type KeyedBroadcastProcessFunction[K comparable, T, B, R any] interface {
	ProcessElement(ctx *KeyedReadOnlyBroadcastContext[K, R], v T) error
	ProcessBroadcastElement(ctx *KeyedBroadcastContext[K, R], v B) error
}

// BroadcastStateReader is a context that may read broadcast state: any of
// the broadcast contexts.
type BroadcastStateReader interface {
	ReadOnlyBroadcastStates() *opstate.BroadcastStates
}

// BroadcastStateWriter is a context that may write broadcast state: the
// contexts of broadcast elements.
type BroadcastStateWriter interface {
	BroadcastStates() *opstate.BroadcastStates
}

// ReadOnlyBroadcastState is a broadcast map state as the non-broadcast
// side sees it.
type ReadOnlyBroadcastState[K comparable, V any] interface {
	Get(k K) (V, bool)
	Contains(k K) bool
	// All iterates over the entries in no particular order.
	All() iter.Seq2[K, V]
	Len() int
}

// BroadcastState is a broadcast map state as the broadcast side sees it.
type BroadcastState[K comparable, V any] interface {
	ReadOnlyBroadcastState[K, V]
	Put(k K, v V)
	Remove(k K)
	Clear()
}

// GetBroadcastState returns the broadcast state d, to read and write. d
// must have been declared by Broadcast.
func GetBroadcastState[K comparable, V any](ctx BroadcastStateWriter, d MapStateDescriptor[K, V]) (BroadcastState[K, V], error) {
	return opstate.BroadcastMap[K, V](ctx.BroadcastStates(), d.name)
}

// GetReadOnlyBroadcastState returns the broadcast state d, to read.
func GetReadOnlyBroadcastState[K comparable, V any](ctx BroadcastStateReader, d MapStateDescriptor[K, V]) (ReadOnlyBroadcastState[K, V], error) {
	m, err := opstate.BroadcastMap[K, V](ctx.ReadOnlyBroadcastStates(), d.name)
	if err != nil {
		return nil, err
	}
	return readOnlyMap[K, V]{m}, nil
}

// readOnlyMap hides the writing methods of a map state.
type readOnlyMap[K comparable, V any] struct{ m *opstate.MapState[K, V] }

func (r readOnlyMap[K, V]) Get(k K) (V, bool)    { return r.m.Get(k) }
func (r readOnlyMap[K, V]) Contains(k K) bool    { return r.m.Contains(k) }
func (r readOnlyMap[K, V]) All() iter.Seq2[K, V] { return r.m.All() }
func (r readOnlyMap[K, V]) Len() int             { return r.m.Len() }

// BroadcastConnectedStream is a non-keyed stream connected to a broadcast
// stream.
type BroadcastConnectedStream[T, B any] struct {
	in DataStream[T]
	bc BroadcastStream[B]
}

// ConnectBroadcast connects s to the broadcast stream bc.
func ConnectBroadcast[T, B any](s DataStream[T], bc BroadcastStream[B]) BroadcastConnectedStream[T, B] {
	return BroadcastConnectedStream[T, B]{in: s, bc: bc}
}

// KeyedBroadcastConnectedStream is a keyed stream connected to a broadcast
// stream.
type KeyedBroadcastConnectedStream[K comparable, T, B any] struct {
	in KeyedStream[K, T]
	bc BroadcastStream[B]
}

// ConnectKeyedBroadcast connects the keyed stream ks to the broadcast
// stream bc.
func ConnectKeyedBroadcast[K comparable, T, B any](ks KeyedStream[K, T], bc BroadcastStream[B]) KeyedBroadcastConnectedStream[K, T, B] {
	return KeyedBroadcastConnectedStream[K, T, B]{in: ks, bc: bc}
}

// ProcessBroadcast applies fn to the elements of both streams.
func ProcessBroadcast[T, B, R any](c BroadcastConnectedStream[T, B], fn BroadcastProcessFunction[T, B, R]) DataStream[R] {
	names := c.bc.names
	acc := c.in.env.accumulators
	return broadcastOperator[T, B, R](c.in, c.bc, "BroadcastProcess", fn, false, func(out op.Output[R]) any {
		fn := instance(fn)
		return broadcastop.New[T, B, R](fn, names, udf{fn, acc}, out)
	})
}

// ProcessKeyedBroadcast applies fn to the elements of both streams.
func ProcessKeyedBroadcast[K comparable, T, B, R any](c KeyedBroadcastConnectedStream[K, T, B], fn KeyedBroadcastProcessFunction[K, T, B, R]) DataStream[R] {
	names, ks := c.bc.names, c.in
	acc := ks.env.accumulators
	return broadcastOperator[T, B, R](ks.DataStream, c.bc, "KeyedBroadcastProcess", fn, true, func(out op.Output[R]) any {
		fn := instance(fn)
		return keyedop.NewBroadcast[K, T, B, R](fn, ks.key, ks.hash, names, keyedUDF[K]{udf{fn, acc}}, out)
	})
}

// broadcastOperator records the two-input operator that newOp builds for
// each subtask, after the checks.
func broadcastOperator[T, B, R any](in DataStream[T], bc BroadcastStream[B], name string, fn any, keyed bool, newOp func(out op.Output[R]) any) DataStream[R] {
	switch {
	case bc.err != nil:
		return invalid[R](in.env, bc.err)
	case !in.ok() || !bc.s.ok():
		return invalid[R](in.env, fmt.Errorf("weir: %s on an invalid stream", name))
	case in.env != bc.s.env:
		in.env.fail(fmt.Errorf("weir: %s of streams from different programs", name))
		return DataStream[R]{env: in.env}
	}
	if err := checkFn(in, name, fn); err != nil {
		return invalid[R](in.env, err)
	}
	return derive[R](in.env, &graph.Transformation{
		Kind: graph.KindOperator, Name: name, Inputs: []*graph.Transformation{in.t, bc.s.t},
		OutType: typeinfo.New[R](), Keyed: keyed, TwoInput: true,
		Factory: func(out any) (any, error) { return newOp(out.(op.Output[R])), nil },
	})
}
