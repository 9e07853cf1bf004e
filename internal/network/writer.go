package network

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/keygroup"
)

// Broadcast is the channel selector result that sends a record to every
// channel.
const Broadcast = -1

// Selector picks the channel of a record; it returns Broadcast for all.
type Selector[T any] func(v T) int

// Writer is the untyped side of a RecordWriter the task drives.
type Writer interface {
	// Flush sends every partly filled buffer.
	Flush() error
	// BroadcastEvent flushes and sends an event to every channel; an
	// EndOfPartition skips the channels whose consumer released them. For a
	// priority event it returns, per subpartition, copies of the data
	// buffers the event overtook there: the output side of the in-flight
	// data of an unaligned checkpoint.
	BroadcastEvent(e Event) (overtaken [][][]byte, err error)
	// Available reports whether the writer's partition can take more
	// without going beyond its channels' backlog (see ResultPartition).
	Available() bool
	// Partition is the result partition the writer fills.
	Partition() *ResultPartition
	// RecordsOut is the number of records written so far.
	RecordsOut() int64
	// EmitWatermarkStatus announces to every channel that the writer's
	// output is idle (true) or active again (false); a status equal to
	// the one announced last is not sent.
	EmitWatermarkStatus(idle bool) error
	// SetFlushAlways makes the writer send a channel's buffer after every
	// record and watermark it writes there (Flink's buffer timeout 0):
	// the lowest latency, one buffer per record.
	SetFlushAlways()
}

// RecordWriter serializes records and watermarks into one buffer per
// subpartition of its result partition and adds full buffers to them. It
// never waits: the task asks Available before it produces more. It
// implements op.Output[T] and is owned by the producing task's goroutine.
type RecordWriter[T any] struct {
	part     *ResultPartition
	bufs     [][]byte
	codec    *codec.Slot[T]
	selector Selector[T]
	// keyGroup, when set, is the key group of a record, which picks its
	// subpartition by the key-group ranges of maxParallelism and travels
	// in its frame (NewKeyedRecordWriter); selector is then unused.
	keyGroup       func(T) int
	maxParallelism int
	size           int
	records        int64
	// idle is the watermark status announced last.
	idle bool
	// flushAlways sends a buffer as soon as anything is written to it.
	flushAlways bool
}

// NewRecordWriter returns a writer into part; sel picks a subpartition.
func NewRecordWriter[T any](part *ResultPartition, c codec.Codec[T], sel Selector[T], bufferSize int) *RecordWriter[T] {
	return &RecordWriter[T]{
		part: part, bufs: make([][]byte, part.NumSubpartitions()),
		codec: codec.NewSlot(c), selector: sel, size: bufferSize,
	}
}

// NewKeyedRecordWriter returns the writer of a keyed exchange into part:
// keyGroup gives a record's key group among maxParallelism, the record goes
// to the subpartition whose key-group range holds it (as
// keygroup.OperatorIndex), and its frame carries it for the keyed operator
// on the other side.
func NewKeyedRecordWriter[T any](part *ResultPartition, c codec.Codec[T], keyGroup func(T) int, maxParallelism, bufferSize int) *RecordWriter[T] {
	w := NewRecordWriter(part, c, nil, bufferSize)
	w.keyGroup, w.maxParallelism = keyGroup, maxParallelism
	return w
}

// SetFlushAlways implements Writer.
func (w *RecordWriter[T]) SetFlushAlways() { w.flushAlways = true }

// full reports whether buffer b is to be sent now.
func (w *RecordWriter[T]) full(b []byte) bool { return w.flushAlways || len(b) >= w.size }

// Partition implements Writer.
func (w *RecordWriter[T]) Partition() *ResultPartition { return w.part }

// Available implements Writer.
func (w *RecordWriter[T]) Available() bool { return w.part.IsAvailable() }

// Collect implements op.Output.
func (w *RecordWriter[T]) Collect(ts int64, v T) error {
	w.records++
	if w.keyGroup != nil {
		g := w.keyGroup(v)
		return w.write(keygroup.OperatorIndex(w.maxParallelism, len(w.bufs), g), ts, g, v)
	}
	i := w.selector(v)
	if i == Broadcast {
		for i := range w.bufs {
			if err := w.write(i, ts, -1, v); err != nil {
				return err
			}
		}
		return nil
	}
	return w.write(i, ts, -1, v)
}

// write appends record v with timestamp ts and key group keyGroup (-1:
// not keyed) to the buffer of subpartition i.
func (w *RecordWriter[T]) write(i int, ts int64, keyGroup int, v T) error {
	b := AppendRecordHeader(w.buffer(i, BufferMemory(w.size)), ts, keyGroup)
	b = w.codec.Append(b, v)
	w.bufs[i] = b
	if w.full(b) {
		return w.send(i)
	}
	return nil
}

// EmitWatermark implements op.Output: the watermark goes to every channel.
// A writer that announced IDLE announces ACTIVE first: a watermark means
// the output is active (a source that ends while idle still sends its
// MaxWatermark, which must count downstream).
func (w *RecordWriter[T]) EmitWatermark(wm int64) error {
	if err := w.EmitWatermarkStatus(false); err != nil {
		return err
	}
	return w.broadcastElement(func(b []byte) []byte {
		return binary.LittleEndian.AppendUint64(append(b, TagWatermark), uint64(wm))
	})
}

// EmitWatermarkStatus implements Writer.
func (w *RecordWriter[T]) EmitWatermarkStatus(idle bool) error {
	if idle == w.idle {
		return nil
	}
	w.idle = idle
	status := StatusActive
	if idle {
		status = StatusIdle
	}
	return w.broadcastElement(func(b []byte) []byte { return append(b, TagWatermarkStatus, status) })
}

// broadcastElement appends an element to the buffer of every channel,
// sending those it filled.
func (w *RecordWriter[T]) broadcastElement(appendTo func([]byte) []byte) error {
	for i := range w.bufs {
		w.bufs[i] = appendTo(w.buffer(i, eventBufferSize))
		if w.full(w.bufs[i]) {
			if err := w.send(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// eventBufferSize is the memory of a new buffer that is taken for a
// watermark or a watermark status. A watermark goes to every channel, most of which may carry no
// record for a long time (at parallelism 256 a single watermark took 2 GiB
// of full-size buffers); a full buffer is taken only for a record.
const eventBufferSize = 64

// buffer returns the partly filled buffer of channel i, taking one when
// there is none, with room for at least want bytes.
func (w *RecordWriter[T]) buffer(i, want int) []byte {
	b := w.bufs[i]
	if b == nil {
		b = w.part.subs[i].TakeBuffer(want)
	}
	if cap(b) < want {
		grown := make([]byte, len(b), want)
		copy(grown, b)
		b = grown
	}
	return b
}

func (w *RecordWriter[T]) send(i int) error {
	b := w.bufs[i]
	w.bufs[i] = nil
	if _, err := w.part.subs[i].Add(Item{Buf: b}); err != nil {
		return fmt.Errorf("send to subpartition %d of %v: %w", i, w.part.id, err)
	}
	return nil
}

// Flush implements Writer.
func (w *RecordWriter[T]) Flush() error {
	for i, b := range w.bufs {
		if len(b) > 0 {
			if err := w.send(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// BroadcastEvent implements Writer. The partly filled buffers go first, so
// a priority event overtakes them too.
func (w *RecordWriter[T]) BroadcastEvent(e Event) (overtaken [][][]byte, err error) {
	if err := w.Flush(); err != nil {
		return nil, err
	}
	_, end := e.(EndOfPartition)
	for i, s := range w.part.subs {
		o, err := s.Add(Item{Event: e})
		if end && errors.Is(err, ErrReleased) {
			// The consumer ended before the producer, as a task that
			// stopped with a savepoint does while a producer that had
			// finished its input waits for the same savepoint to end:
			// the consumer no longer needs to learn that the partition
			// ended.
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("send %T to subpartition %d of %v: %w", e, i, w.part.id, err)
		}
		if len(o) > 0 {
			if overtaken == nil {
				overtaken = make([][][]byte, len(w.part.subs))
			}
			overtaken[i] = o
		}
	}
	return overtaken, nil
}

// RecordsOut implements Writer.
func (w *RecordWriter[T]) RecordsOut() int64 { return w.records }
