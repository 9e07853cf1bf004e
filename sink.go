package weir

import (
	"context"
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/operator"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// DataStreamSink is the handle of a sink, to name and size it.
type DataStreamSink struct {
	s DataStream[struct{}]
}

// Name sets the sink's display name.
func (k DataStreamSink) Name(name string) DataStreamSink { k.s.Name(name); return k }

// UID sets the sink's stable id.
func (k DataStreamSink) UID(uid string) DataStreamSink { k.s.UID(uid); return k }

// SetParallelism sets the number of sink subtasks.
func (k DataStreamSink) SetParallelism(n int) DataStreamSink { k.s.SetParallelism(n); return k }

// DisableChaining runs the sink in a task of its own.
func (k DataStreamSink) DisableChaining() DataStreamSink { k.s.DisableChaining(); return k }

// SinkFunction writes elements somewhere; it may implement Opener,
// Finisher (flush there) and Closer, and CheckpointedFunction to keep
// operator state across restarts.
type SinkFunction[T any] interface {
	Invoke(v T) error
}

type sinkFunc[T any] func(T) error

func (f sinkFunc[T]) Invoke(v T) error { return f(v) }

// AddSink ends the stream in f.
func AddSink[T any](s DataStream[T], f func(T) error) DataStreamSink {
	if f == nil {
		return DataStreamSink{invalid[struct{}](s.env, fmt.Errorf("weir: AddSink: nil function"))}
	}
	return AddSinkWith[T](s, sinkFunc[T](f))
}

// AddSinkWith ends the stream in fn.
func AddSinkWith[T any](s DataStream[T], fn SinkFunction[T]) DataStreamSink {
	if err := checkFn(s, "AddSink", fn); err != nil {
		return DataStreamSink{invalid[struct{}](s.env, err)}
	}
	acc := s.env.accumulators
	return addSink(s, "Sink", func(any) (any, error) {
		fn := instance(fn)
		if h, ok := statefulHooks(fn, acc); ok {
			return operator.NewStatefulSinkOf[T](fn, h), nil
		}
		return operator.NewSinkOf[T](fn, udf{fn, acc}), nil
	})
}

// addSink records a sink of s for the next execution of its Env.
func addSink[T any](s DataStream[T], name string, factory graph.Factory) DataStreamSink {
	k := derive[struct{}](s.env, &graph.Transformation{
		Kind: graph.KindOperator, Name: name, Inputs: []*graph.Transformation{s.t},
		OutType: typeinfo.New[struct{}](), Factory: factory,
	})
	s.env.addSink(k.t)
	return DataStreamSink{k}
}

// Print writes every element on a line of the Env's standard output, with
// the subtask number as prefix ("2> ") when the sink runs in parallel.
func Print[T any](s DataStream[T]) DataStreamSink {
	if !s.ok() {
		return DataStreamSink{invalid[struct{}](s.env, errors.New("weir: Print on an invalid stream"))}
	}
	w := operator.NewPrintWriter(s.env.opts.Stdout)
	return addSink(s, "Print", func(any) (any, error) { return operator.NewPrint[T](w), nil })
}

// WriteText writes format(v) as a line per element into files under dir:
// part-<subtask>, one per sink subtask. Files are flushed and synced at
// Finish. (This sink is at-least-once; the exactly-once file sink comes
// with checkpoints.)
func WriteText[T any](s DataStream[T], dir string, format func(T) string) DataStreamSink {
	switch {
	case format == nil:
		return DataStreamSink{invalid[struct{}](s.env, errors.New("weir: WriteText: nil format function"))}
	case dir == "":
		return DataStreamSink{invalid[struct{}](s.env, errors.New("weir: WriteText: empty directory"))}
	case !s.ok():
		return DataStreamSink{invalid[struct{}](s.env, errors.New("weir: WriteText on an invalid stream"))}
	}
	return addSink(s, "WriteText", func(any) (any, error) {
		return operator.NewText(dir, format), nil
	})
}

// errCollected is the cause with which CollectN stops a job once it has
// its elements.
var errCollected = errors.New("weir: collected enough elements")

// Collect runs the program and returns the elements of s. The stream must
// be bounded, or ctx must end the job. Elements arrive in the order a
// single collecting subtask receives them. Collect is an execution of s's
// Env (see Env.Execute): it also runs the other sinks added since the last
// execution, and a later one does not run this one's again.
//
// Each element is returned once, also when the job restarts: a restart
// from a checkpoint drops the elements collected after it (the replay
// collects them again), and one without checkpointing starts over.
func Collect[T any](ctx context.Context, s DataStream[T]) ([]T, error) {
	return collect(ctx, s, -1)
}

// CollectN runs the program until s produced n elements (or ended), then
// cancels the job and returns them: for unbounded streams. An execution
// that creates a cache (see Cache) is not cancelled but runs to its end,
// so that the cache is complete.
func CollectN[T any](ctx context.Context, s DataStream[T], n int) ([]T, error) {
	if n < 0 {
		return nil, fmt.Errorf("weir: CollectN: negative limit %d", n)
	}
	return collect(ctx, s, n)
}

func collect[T any](ctx context.Context, s DataStream[T], limit int) ([]T, error) {
	if !s.ok() {
		if s.env != nil && s.env.err != nil {
			return nil, s.env.err
		}
		return nil, errors.New("weir: Collect on an invalid stream")
	}
	if limit == 0 {
		return nil, nil // no sink: it would run in the next execution
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// An execution that creates a cache runs to its end, so that the cache
	// is complete; the buffer takes no more than limit elements anyway.
	stop := true
	buf := operator.NewCollectBuffer[T](limit, func() {
		if stop {
			cancel(errCollected)
		}
	})
	sink := addSink(s, "Collect", func(any) (any, error) { return operator.NewCollect(buf), nil })
	// One collecting subtask: its max parallelism too, so that the
	// adaptive scheduler in reactive mode (which runs every vertex up to
	// its max parallelism) keeps it at 1.
	sink.SetParallelism(1)
	sink.s.SetMaxParallelism(1)
	stop = !s.env.producesCaches(s.env.sinks)
	// An execution run again because a cache it read was lost collects
	// from the start.
	s.env.onRerun(sink.s.t, func() { buf.Items = buf.Items[:0] })
	_, err := s.env.Execute(ctx, "collect")
	if err != nil && !errors.Is(context.Cause(ctx), errCollected) {
		return buf.Items, err
	}
	return buf.Items, nil
}
