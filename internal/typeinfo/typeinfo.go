// Package typeinfo is the typed glue between the untyped graph and the
// generic runtime pieces. The public API creates an Of[T] for every element
// type it sees (the point where T is known statically); the runtime later
// calls its methods with untyped values to build fan-outs, chained inputs,
// record writers and readers of the right type without reflection on the
// record path.
package typeinfo

import (
	"fmt"
	"reflect"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// Info is what the runtime needs of an element type.
type Info interface {
	graph.Type
	// Err says why the type cannot be serialized, or nil.
	Err() error
	// FanOut combines op.Output[T] values into one; none gives a discarding
	// output.
	FanOut(outs []any) (any, error)
	// AlsoWatermarks wraps main, an op.Output[T], so that the watermarks
	// its operator emits go on to also as well (the operator's side
	// outputs, which carry its watermarks as Flink's do); records and
	// batches go to main alone.
	AlsoWatermarks(main any, also func(wm int64) error) (any, error)
	// ChainInput adapts a chained operator, which implements op.Input[T],
	// into the op.Output[T] of its predecessor. Watermarks go to the
	// operator when it implements op.WatermarkInput, else to forward.
	// Errors of the operator pass through attr, which names it.
	ChainInput(target any, forward func(wm int64) error, attr func(error) error) (any, error)
	// NewWriter returns an op.Output[T] that is also a network.Writer.
	NewWriter(part *network.ResultPartition, p graph.Partitioner, maxParallelism, subtask, bufferSize int) (network.Writer, error)
	// NewReader returns a reader feeding target, an op.Input[T]; errors of
	// the operator pass through attr.
	NewReader(target any, attr func(error) error) (network.Reader, error)
}

// Of is the Info of T.
type Of[T any] struct {
	codec codec.Codec[T]
	err   error
	name  string
}

// New returns the Info of T. A type without codec is fine as long as its
// values never cross the network: Err reports it, and the job graph check
// refuses such a type on a non-chained edge.
func New[T any]() *Of[T] {
	c, err := codec.For[T]()
	return &Of[T]{codec: c, err: err, name: reflect.TypeFor[T]().String()}
}

func (t *Of[T]) String() string { return t.name }

// Err says why T cannot be serialized, or nil.
func (t *Of[T]) Err() error { return t.err }

// Codec returns T's codec.
func (t *Of[T]) Codec() codec.Codec[T] { return t.codec }

// FanOut implements Info.
func (t *Of[T]) FanOut(outs []any) (any, error) {
	typed := make([]op.Output[T], 0, len(outs))
	for i, o := range outs {
		to, ok := o.(op.Output[T])
		if !ok {
			return nil, fmt.Errorf("typeinfo: output %d is %T, not an output of %s", i, o, t.name)
		}
		typed = append(typed, to)
	}
	switch len(typed) {
	case 0:
		return discard[T]{}, nil
	case 1:
		return typed[0], nil
	}
	return newFanOut(typed), nil
}

// AlsoWatermarks implements Info.
func (t *Of[T]) AlsoWatermarks(main any, also func(wm int64) error) (any, error) {
	m, ok := main.(op.Output[T])
	if !ok {
		return nil, fmt.Errorf("typeinfo: output %T is not an output of %s", main, t.name)
	}
	w := &alsoWatermarks[T]{Output: m, also: also}
	if b, ok := main.(op.BatchOutput[T]); ok {
		return &alsoWatermarksBatch[T]{alsoWatermarks: w, batch: b}, nil
	}
	return w, nil
}

// alsoWatermarks is an operator's main output whose watermarks also go to
// its side outputs.
type alsoWatermarks[T any] struct {
	op.Output[T]
	also func(wm int64) error
}

func (a *alsoWatermarks[T]) EmitWatermark(wm int64) error {
	if err := a.Output.EmitWatermark(wm); err != nil {
		return err
	}
	return a.also(wm)
}

// alsoWatermarksBatch is alsoWatermarks over an output that takes batches.
type alsoWatermarksBatch[T any] struct {
	*alsoWatermarks[T]
	batch op.BatchOutput[T]
}

func (a *alsoWatermarksBatch[T]) CollectBatch(ts []int64, vs []T) error {
	return a.batch.CollectBatch(ts, vs)
}

// ChainInput implements Info.
func (t *Of[T]) ChainInput(target any, forward func(wm int64) error, attr func(error) error) (any, error) {
	if direct, ok := target.(op.Output[T]); ok {
		if b, ok := target.(op.Chainable); ok {
			if _, handlesWatermarks := target.(op.WatermarkInput); !handlesWatermarks {
				b.Bind(attr, forward)
				return direct, nil
			}
		}
	}
	in, ok := target.(op.Input[T])
	if !ok {
		return nil, fmt.Errorf("typeinfo: operator %T does not take %s as input", target, t.name)
	}
	c := &chained[T]{in: in, watermark: forward, attr: attr}
	if w, ok := target.(op.WatermarkInput); ok {
		c.watermark = w.ProcessWatermark
	}
	if b, ok := target.(op.BatchInput[T]); ok {
		return &chainedBatch[T]{chained: c, batch: b}, nil
	}
	return c, nil
}

// NewWriter implements Info.
func (t *Of[T]) NewWriter(part *network.ResultPartition, p graph.Partitioner, maxParallelism, subtask, bufferSize int) (network.Writer, error) {
	if t.err != nil {
		return nil, t.err
	}
	if p.Kind == graph.Hash {
		hash, ok := p.KeyHash.(func(T) uint32)
		if !ok {
			return nil, fmt.Errorf("typeinfo: key hash %T does not hash %s", p.KeyHash, reflect.TypeFor[T]())
		}
		groups := keygroup.NewAssigner(maxParallelism)
		keyGroup := func(v T) int { return groups.Of(hash(v)) }
		return network.NewKeyedRecordWriter(part, t.codec, keyGroup, maxParallelism, bufferSize), nil
	}
	sel, err := selector[T](p, part.NumSubpartitions(), subtask)
	if err != nil {
		return nil, err
	}
	return network.NewRecordWriter(part, t.codec, sel, bufferSize), nil
}

// NewReader implements Info.
func (t *Of[T]) NewReader(target any, attr func(error) error) (network.Reader, error) {
	if t.err != nil {
		return nil, t.err
	}
	in, ok := target.(op.Input[T])
	if !ok {
		return nil, fmt.Errorf("typeinfo: operator %T does not take %s as input", target, t.name)
	}
	c := &chained[T]{in: in, attr: attr}
	if k, ok := target.(op.KeyedBatchInput[T]); ok {
		cb := &chainedBatch[T]{chained: c, batch: k}
		return network.NewBatchReader(t.codec, op.Input[T](&chainedKeyedBatch[T]{chainedBatch: cb, keyed: k})), nil
	}
	if b, ok := target.(op.BatchInput[T]); ok {
		return network.NewBatchReader(t.codec, op.Input[T](&chainedBatch[T]{chained: c, batch: b})), nil
	}
	return network.NewRecordReader(t.codec, c), nil
}

// selector picks the subpartition of a record for the partitioners other
// than Hash, whose writer routes by key group.
func selector[T any](p graph.Partitioner, n, subtask int) (network.Selector[T], error) {
	switch p.Kind {
	case graph.Forward, graph.Global:
		return func(T) int { return 0 }, nil
	case graph.Broadcast:
		return func(T) int { return network.Broadcast }, nil
	case graph.Rebalance, graph.Rescale:
		next := subtask % n
		return func(T) int {
			i := next
			if next++; next == n {
				next = 0
			}
			return i
		}, nil
	}
	return nil, fmt.Errorf("typeinfo: unsupported partitioner %v", p.Kind)
}

// fanOut sends every record and watermark to each of its outputs in turn.
type fanOut[T any] []op.Output[T]

// newFanOut is the fan-out to outs; it takes batches when one of them
// does.
func newFanOut[T any](outs []op.Output[T]) op.Output[T] {
	f := &fanOutBatch[T]{fanOut: outs, batch: make([]op.BatchOutput[T], len(outs))}
	takes := false
	for i, o := range outs {
		if b, ok := o.(op.BatchOutput[T]); ok {
			f.batch[i], takes = b, true
		}
	}
	if !takes {
		return f.fanOut
	}
	return f
}

// fanOutBatch is a fanOut that hands a batch to each output in turn: an
// output that takes batches gets it whole, the others a record at a time.
// Every output sees the records in their order; only the interleaving of
// the outputs changes, which nothing between the records (no watermark,
// barrier or timer comes inside a batch) can observe. A callee may
// overwrite the slices it gets (op.BatchOutput), so every output but the
// last gets a copy.
type fanOutBatch[T any] struct {
	fanOut[T]
	batch []op.BatchOutput[T] // batch[i] is fanOut[i] if it takes batches, else nil
	ts    []int64             // scratch copies
	vs    []T
}

func (f *fanOutBatch[T]) CollectBatch(ts []int64, vs []T) error {
	last := len(f.fanOut) - 1
	for i, o := range f.fanOut {
		b := f.batch[i]
		if b == nil {
			for j, v := range vs {
				if err := o.Collect(op.TimestampAt(ts, j), v); err != nil {
					return err
				}
			}
			continue
		}
		if i == last {
			return b.CollectBatch(ts, vs)
		}
		f.vs = append(f.vs[:0], vs...)
		cts := ts
		if ts != nil {
			f.ts = append(f.ts[:0], ts...)
			cts = f.ts
		}
		err := b.CollectBatch(cts, f.vs)
		clear(f.vs) // drop the references the copy holds
		if err != nil {
			return err
		}
	}
	return nil
}

func (f fanOut[T]) Collect(ts int64, v T) error {
	for _, o := range f {
		if err := o.Collect(ts, v); err != nil {
			return err
		}
	}
	return nil
}

func (f fanOut[T]) EmitWatermark(wm int64) error {
	for _, o := range f {
		if err := o.EmitWatermark(wm); err != nil {
			return err
		}
	}
	return nil
}

type discard[T any] struct{}

func (discard[T]) Collect(int64, T) error    { return nil }
func (discard[T]) EmitWatermark(int64) error { return nil }

// chained feeds an operator's input and names the operator in its errors.
type chained[T any] struct {
	in        op.Input[T]
	watermark func(int64) error
	attr      func(error) error
}

func (c *chained[T]) Collect(ts int64, v T) error {
	if err := c.in.ProcessElement(ts, v); err != nil {
		return c.attr(err)
	}
	return nil
}

// ProcessElement lets a reader feed the adapter as an op.Input.
func (c *chained[T]) ProcessElement(ts int64, v T) error { return c.Collect(ts, v) }

func (c *chained[T]) EmitWatermark(wm int64) error {
	if err := c.watermark(wm); err != nil {
		return c.attr(err)
	}
	return nil
}

// chainedBatch is chained for an operator that takes batches
// (op.BatchInput) but cannot be its predecessor's output directly, as it
// handles watermarks itself (the timestamp assigner, a process function).
type chainedBatch[T any] struct {
	*chained[T]
	batch op.BatchInput[T]
}

func (c *chainedBatch[T]) CollectBatch(ts []int64, vs []T) error {
	if err := c.batch.CollectBatch(ts, vs); err != nil {
		return c.attr(err)
	}
	return nil
}

// chainedKeyedBatch is chainedBatch for a keyed operator that also takes
// the key groups of a batch (op.KeyedBatchInput).
type chainedKeyedBatch[T any] struct {
	*chainedBatch[T]
	keyed op.KeyedBatchInput[T]
}

func (c *chainedKeyedBatch[T]) CollectKeyedBatch(ts []int64, groups []uint16, vs []T) error {
	if err := c.keyed.CollectKeyedBatch(ts, groups, vs); err != nil {
		return c.attr(err)
	}
	return nil
}

// CheckEdges reports the first edge of jg whose element type cannot cross
// the network, naming both operators.
func CheckEdges(jg *graph.JobGraph) error {
	for _, e := range jg.Edges {
		se := e.StreamEdge
		info, ok := se.Type.(Info)
		if !ok {
			return fmt.Errorf("typeinfo: edge %v -> %v has no runtime type info", se.Source, se.Target)
		}
		if err := info.Err(); err != nil {
			return fmt.Errorf("the records from %v to %v cross the network, but their type %v cannot be serialized: %w",
				se.Source, se.Target, info, err)
		}
	}
	return nil
}
