package op

import "math"

// Timestamps and watermarks are milliseconds of event time.
const (
	// NoTimestamp marks a record that carries no event timestamp.
	NoTimestamp int64 = math.MinInt64
	// MinWatermark is the watermark before any was emitted.
	MinWatermark int64 = math.MinInt64
	// MaxWatermark is the watermark a source emits when it ends, and the one
	// stop-with-savepoint --drain injects: every event-time timer fires.
	MaxWatermark int64 = math.MaxInt64
)

// Output receives what an operator emits. The next operator of a chain
// implements it directly, so emitting is a plain method call.
type Output[T any] interface {
	// Collect emits v with event timestamp ts (NoTimestamp when none).
	Collect(ts int64, v T) error
	// EmitWatermark forwards a watermark.
	EmitWatermark(wm int64) error
}

// BatchOutput is an Output that also takes records a batch at a time: one
// call for the records a predecessor produced in one go (a source poll, a
// batch of its own input), where the chain would otherwise make one call per
// record. The records are in order and nothing (watermark, barrier, timer)
// comes between them: an operator that must emit something else between two
// records does so through Collect. ts holds the records' event timestamps,
// or is nil when none has one (NoTimestamp). The callee may overwrite both
// slices (a filter compacts them in place) but must not keep them after it
// returns. A callee that cannot batch its own output passes the records on
// one Collect at a time, so the observable order is that of Collect calls.
type BatchOutput[T any] interface {
	Output[T]
	BatchInput[T]
}

// BatchInput is the batch half of BatchOutput: an operator that takes its
// input a batch at a time on the terms of BatchOutput, also when it is not
// its predecessor's output directly (it handles watermarks itself, as a
// process function's operator does, so the chain calls it through an
// adapter).
type BatchInput[T any] interface {
	CollectBatch(ts []int64, vs []T) error
}

// KeyedBatchInput is a BatchInput of a keyed operator that also takes
// the key group of every record as its sender computed it: the exchange in
// front of a keyed operator routes records by key group and the record's
// frame carries it, so the operator need not hash the key again. groups[i]
// is the key group of vs[i]; the terms are otherwise those of
// CollectBatch, and the callee may overwrite groups too.
type KeyedBatchInput[T any] interface {
	BatchInput[T]
	CollectKeyedBatch(ts []int64, groups []uint16, vs []T) error
}

// TimestampAt is the timestamp of record i of a batch whose timestamps are
// ts (nil: the records have none).
func TimestampAt(ts []int64, i int) int64 {
	if ts == nil {
		return NoTimestamp
	}
	return ts[i]
}

// Input is the typed input of an operator.
type Input[T any] interface {
	ProcessElement(ts int64, v T) error
}

// MultiInput is implemented by operators with more than one logical input
// (a two-input operator such as a co-process or a join): InputAt(i) returns
// the op.Input[T] of input i. Input 0 of a single-input operator is the
// operator itself.
type MultiInput interface {
	InputAt(i int) any
}

// Chainable is implemented by operators that can serve directly as their
// chained predecessor's op.Output of their input type, saving the adapter
// that would otherwise sit between the two calls. Bind hands them what the
// adapter did: attr names the operator in errors, forward passes
// watermarks on to the operator's outputs. Their Collect must attribute
// every error it returns.
type Chainable interface {
	Bind(attr func(error) error, forward func(wm int64) error)
}

// WatermarkInput is implemented by operators that react to watermarks.
// Operators that do not implement it have their watermarks forwarded to
// their output by the chain (see Forwarder).
type WatermarkInput interface {
	ProcessWatermark(wm int64) error
}

// Operator is the lifecycle every operator implements.
type Operator interface {
	// Open prepares the operator; it may register state and timers.
	Open(ctx *Context) error
	// Finish flushes buffered data at the end of input; it may still emit.
	Finish() error
	// Close releases resources. It never emits and is always called.
	Close() error
}

// BoundedInput is implemented by operators that want to know when an input
// has ended (the EndOfData event, or the end of a bounded source).
type BoundedInput interface {
	EndInput(input int) error
}

// Source is the operator at the head of a source task. The task polls it
// from its mailbox loop.
type Source interface {
	Operator
	// PollNext emits some records (a batch, to amortize the loop) and
	// reports what the task should do next.
	PollNext() (Status, error)
	// Available returns a channel that is closed or receives when a source
	// that returned NothingAvailable has more to emit. It may return nil when
	// the source never returns NothingAvailable.
	Available() <-chan struct{}
}

// SizedSource is implemented by a bounded source that knows how much
// input it has: Progress says how much of it the source emitted so far
// and how much there is in all, in a unit of its own (records, or bytes
// of a file), for the progress of `weir run`. It is called from the
// task's loop, between polls.
type SizedSource interface {
	Progress() (emitted, total int64)
}

// Status is what a source reports after PollNext.
type Status int

const (
	// MoreAvailable: poll again at once.
	MoreAvailable Status = iota
	// NothingAvailable: wait for Available() before polling again.
	NothingAvailable
	// EndOfInput: the source is exhausted.
	EndOfInput
)

// Base is embedded by operators that need no lifecycle hooks of their own.
type Base struct{}

// Open does nothing.
func (Base) Open(*Context) error { return nil }

// Finish does nothing.
func (Base) Finish() error { return nil }

// Close does nothing.
func (Base) Close() error { return nil }
