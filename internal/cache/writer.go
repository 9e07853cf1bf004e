package cache

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// bufferBytes is the size of the data buffers a Writer appends, the
// network's buffer size: a reader decodes one buffer at a time.
const bufferBytes = 32 << 10

// Writer is the operator behind a cached transformation in an execution
// that creates the cache: it forwards every element and watermark
// unchanged and appends the element, framed as on the network, to its
// subtask's partition. Writing is best effort: an error (a full disk)
// abandons the dataset with a warning, and the execution goes on without
// it.
type Writer[T any] struct {
	prod    *Production
	codec   *codec.Slot[T]
	out     op.Output[T]
	log     *slog.Logger
	subtask int
	file    *network.PartitionFile
	buf     []byte
	records int64
	bytes   int64
	done    bool
}

// NewWriter returns the writer of one subtask of prod, forwarding to out;
// with a nil prod it only forwards.
func NewWriter[T any](prod *Production, c codec.Codec[T], out op.Output[T]) *Writer[T] {
	return &Writer[T]{prod: prod, codec: codec.NewSlot(c), out: out}
}

// Open implements op.Operator: it creates the subtask's partition.
func (w *Writer[T]) Open(ctx *op.Context) error {
	if w.prod == nil {
		return nil // forward only: this execution does not create the cache
	}
	w.subtask, w.log = ctx.SubtaskIndex, ctx.Logger
	if w.log == nil {
		w.log = w.prod.reg.opts.Logger
	}
	if ctx.SubtaskIndex >= w.prod.parallel {
		w.fail(fmt.Errorf("subtask %d of a dataset of %d partitions", ctx.SubtaskIndex, w.prod.parallel))
		return nil
	}
	f, err := network.CreatePartitionFile(w.prod.dir, w.prod.fileName(ctx.SubtaskIndex), 1, w.prod.reg.opts.RegionBytes)
	if err != nil {
		w.fail(err)
		return nil
	}
	w.file = f
	w.buf = make([]byte, 0, bufferBytes+bufferBytes/4)
	return nil
}

// ProcessElement implements op.Input.
func (w *Writer[T]) ProcessElement(ts int64, v T) error {
	if err := w.out.Collect(ts, v); err != nil {
		return err
	}
	if w.file == nil {
		return nil
	}
	w.buf = w.codec.Append(network.AppendRecordHeader(w.buf, ts, -1), v)
	w.records++
	if len(w.buf) >= bufferBytes {
		w.flush()
	}
	return nil
}

// flush appends the buffer to the partition.
func (w *Writer[T]) flush() {
	if len(w.buf) == 0 || w.file == nil {
		return
	}
	w.bytes += int64(len(w.buf))
	var err error
	if max := w.prod.reg.opts.MaxPartitionBytes; max > 0 && w.bytes > max {
		err = fmt.Errorf("%w (%d bytes)", errNoSpace, max)
	} else {
		err = w.file.Add(0, w.buf)
	}
	w.buf = w.buf[:0]
	if err != nil {
		w.fail(err)
	}
}

// fail abandons the dataset: the partition is removed, elements are still
// forwarded.
func (w *Writer[T]) fail(err error) {
	w.log.Warn("cache: cannot write the cached result; the execution goes on without creating the cache",
		"dataset", w.prod.id, "name", w.prod.name, "subtask", w.subtask, "error", err)
	w.prod.abandon(fmt.Errorf("subtask %d: %w", w.subtask, err))
	if w.file != nil {
		_ = w.file.Remove()
		w.file = nil
	}
}

// Finish implements op.Operator: it completes the partition (synced, its
// index in place) and reports it.
func (w *Writer[T]) Finish() error {
	w.flush()
	if w.file == nil {
		return nil
	}
	if err := w.file.Finish(); err != nil {
		w.fail(err)
		return nil
	}
	data, index := w.file.Paths()
	size := w.bytes
	if fi, err := os.Stat(data); err == nil {
		size = fi.Size()
	}
	w.prod.finished(w.subtask, &Partition{Data: data, Index: index, Records: w.records, Bytes: size})
	w.done = true
	return nil
}

// Close implements op.Operator: a partition that was not finished (the
// subtask failed or was cancelled) is removed.
func (w *Writer[T]) Close() error {
	if w.file != nil && !w.done {
		_ = w.file.Remove()
	}
	w.file = nil
	return nil
}
