package weir

import (
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/processop"
)

// ProcessContext is what a ProcessFunction sees of the element at hand:
// its timestamp (Timestamp), the time (TimerService), and the outputs
// (Collect, CollectWithTimestamp, and Output for side outputs).
type ProcessContext[R any] = processop.Context[R]

// ProcessFunction processes the elements of a non-keyed stream (Flink's
// ProcessFunction on a DataStream). It may implement Opener, Finisher,
// Closer and CheckpointedFunction. A non-keyed stream has no keyed state
// and no timers: registering a timer fails the job with ErrTimerNotKeyed,
// as Flink refuses it.
type ProcessFunction[T, R any] interface {
	ProcessElement(ctx *ProcessContext[R], v T) error
}

// WatermarkListener is a ProcessFunction that also hears of every
// watermark: OnWatermark runs when a watermark reaches the subtask, before
// the watermark goes on, so what it emits precedes the watermark
// downstream (what Flink's custom operators do in processWatermark). ctx
// carries no element: Collect emits without a timestamp,
// CollectWithTimestamp with the one given. It lets a non-keyed stage
// pre-aggregate locally and flush at each watermark, before a keyBy, as
// Flink's local-global aggregation does; the end of a bounded input is
// the final watermark, so it flushes then too.
type WatermarkListener[R any] = processop.WatermarkFunction[R]

// ErrTimerNotKeyed is the error of a timer registered on a non-keyed
// stream.
var ErrTimerNotKeyed = processop.ErrTimerNotKeyed

// ProcessStream applies a process function to every element of a
// non-keyed stream.
func ProcessStream[T, R any](s DataStream[T], fn ProcessFunction[T, R]) DataStream[R] {
	if err := checkFn(s, "ProcessStream", fn); err != nil {
		return invalid[R](s.env, err)
	}
	acc := s.env.accumulators
	return newOperator[T, R](s, "Process", func(out any) (any, error) {
		fn := instance(fn)
		if h, ok := statefulHooks(fn, acc); ok {
			return processop.New[T, R](fn, h, out.(op.Output[R])), nil
		}
		return processop.New[T, R](fn, udf{fn, acc}, out.(op.Output[R])), nil
	})
}
