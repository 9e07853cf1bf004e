package operator

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/weir-engine/weir/internal/op"
)

// Sink hands every element to a function.
type Sink[T any] struct {
	UDF
	chainBinding
	fn func(T) error
	// inv, when set, is what fn calls: the batch path calls it directly,
	// saving the call through the method value.
	inv Invoker[T]
}

// Invoker is a sink function as an interface (weir.SinkFunction).
type Invoker[T any] interface {
	Invoke(v T) error
}

// NewSink returns a sink of fn; hooks may be nil.
func NewSink[T any](fn func(T) error, hooks Hooks) *Sink[T] {
	return &Sink[T]{fn: fn, UDF: UDF{hooks}}
}

// NewSinkOf returns a sink of inv.Invoke; hooks may be nil.
func NewSinkOf[T any](inv Invoker[T], hooks Hooks) *Sink[T] {
	return &Sink[T]{fn: inv.Invoke, inv: inv, UDF: UDF{hooks}}
}

// Collect is ProcessElement for a direct predecessor (op.Chainable).
func (k *Sink[T]) Collect(_ int64, v T) error {
	if err := k.fn(v); err != nil {
		return k.attr(err)
	}
	return nil
}

// CollectBatch implements op.BatchOutput for a direct predecessor.
func (k *Sink[T]) CollectBatch(_ []int64, vs []T) error {
	if k.inv != nil {
		for _, v := range vs {
			if err := k.inv.Invoke(v); err != nil {
				return k.attr(err)
			}
		}
		return nil
	}
	for _, v := range vs {
		if err := k.fn(v); err != nil {
			return k.attr(err)
		}
	}
	return nil
}

// ProcessElement implements op.Input.
func (k *Sink[T]) ProcessElement(_ int64, v T) error { return k.fn(v) }

// PrintWriter is the writer the subtasks of one Print sink share.
type PrintWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewPrintWriter returns the shared writer of a Print sink writing to w.
func NewPrintWriter(w io.Writer) *PrintWriter { return &PrintWriter{w: w} }

// Print writes every element on a line, prefixed with the subtask number
// ("2> ") when the sink runs in parallel.
type Print[T any] struct {
	op.Base
	w      *PrintWriter
	prefix string
}

// NewPrint returns a print sink writing to w.
func NewPrint[T any](w *PrintWriter) *Print[T] { return &Print[T]{w: w} }

// Open implements op.Operator.
func (p *Print[T]) Open(ctx *op.Context) error {
	if ctx.Parallelism > 1 {
		p.prefix = fmt.Sprintf("%d> ", ctx.SubtaskIndex+1)
	}
	return nil
}

// ProcessElement implements op.Input.
func (p *Print[T]) ProcessElement(_ int64, v T) error {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	_, err := fmt.Fprintf(p.w.w, "%s%v\n", p.prefix, v)
	return err
}

// Text writes format(v) as a line per element into dir/part-<subtask>,
// flushed and synced at Finish.
type Text[T any] struct {
	op.Base
	dir    string
	format func(T) string
	f      *os.File
	w      *bufio.Writer
}

// NewText returns a text sink writing into dir.
func NewText[T any](dir string, format func(T) string) *Text[T] {
	return &Text[T]{dir: dir, format: format}
}

// Open implements op.Operator.
func (k *Text[T]) Open(ctx *op.Context) error {
	if err := os.MkdirAll(k.dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(k.dir, fmt.Sprintf("part-%d", ctx.SubtaskIndex)))
	if err != nil {
		return err
	}
	k.f, k.w = f, bufio.NewWriterSize(f, 64<<10)
	return nil
}

// ProcessElement implements op.Input.
func (k *Text[T]) ProcessElement(_ int64, v T) error {
	k.w.WriteString(k.format(v))
	return k.w.WriteByte('\n')
}

// Finish implements op.Operator.
func (k *Text[T]) Finish() error {
	if err := k.w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", k.f.Name(), err)
	}
	if err := k.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", k.f.Name(), err)
	}
	return nil
}

// Close implements op.Operator.
func (k *Text[T]) Close() error {
	if k.f == nil {
		return nil
	}
	return k.f.Close()
}

// CollectBuffer is where a Collect sink puts the elements, for the caller
// to read after the job ended.
type CollectBuffer[T any] struct {
	// Items are the elements collected.
	Items []T
	limit int
	done  func()
}

// NewCollectBuffer returns a buffer that takes up to limit elements (all
// when limit < 0) and calls done when it has limit of them.
func NewCollectBuffer[T any](limit int, done func()) *CollectBuffer[T] {
	return &CollectBuffer[T]{limit: limit, done: done}
}

// Collect puts the elements into a buffer. It runs in the one collecting
// subtask, so it needs no lock; the caller reads the buffer after the job
// ended.
//
// The buffer holds each element once whatever restarts happen: a
// checkpoint stores how many elements the buffer held at its barrier, and
// a restarted attempt drops the elements after that count (none survive a
// restart without a checkpoint), which the replay from the checkpoint
// collects again.
type Collect[T any] struct {
	op.Base
	buf *CollectBuffer[T]
}

// collectedState is the list state of a Collect sink: the number of
// elements collected at the checkpoint.
const collectedState = "collected"

// NewCollect returns a collect sink filling buf.
func NewCollect[T any](buf *CollectBuffer[T]) *Collect[T] { return &Collect[T]{buf: buf} }

// Open drops the elements collected after the state the subtask starts
// from. A count above the buffer's length comes from another execution
// (a savepoint of an earlier run), whose elements that run collected: the
// buffer stays as it is.
func (c *Collect[T]) Open(ctx *op.Context) error {
	n := 0
	if entries := ctx.Restored.List(collectedState); len(entries) > 0 {
		if len(entries) != 1 {
			return fmt.Errorf("restore: corrupt %s state: %d entries, want 1", collectedState, len(entries))
		}
		v, k := binary.Varint(entries[0])
		if k != len(entries[0]) || v < 0 {
			return fmt.Errorf("restore: corrupt %s state %x", collectedState, entries[0])
		}
		n = int(min(v, int64(len(c.buf.Items))))
	}
	clear(c.buf.Items[n:])
	c.buf.Items = c.buf.Items[:n]
	return nil
}

// SnapshotState stores the number of elements collected so far.
func (c *Collect[T]) SnapshotState(int64) (*op.Snapshot, error) {
	n := binary.AppendVarint(nil, int64(len(c.buf.Items)))
	return &op.Snapshot{Lists: []op.NamedList{{Name: collectedState, Mode: op.SplitList, Entries: [][]byte{n}}}}, nil
}

// ProcessElement implements op.Input.
func (c *Collect[T]) ProcessElement(_ int64, v T) error {
	if c.buf.limit >= 0 && len(c.buf.Items) >= c.buf.limit {
		return nil
	}
	c.buf.Items = append(c.buf.Items, v)
	if len(c.buf.Items) == c.buf.limit {
		c.buf.done()
	}
	return nil
}
