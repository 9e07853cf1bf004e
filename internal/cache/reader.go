package cache

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler"
)

// ReadError is the failure of reading a cached dataset: a partition file
// missing, truncated or failing its checksum, or the connection to the
// TaskManager that holds a cluster partition lost. No restart of the job
// can fix it, as a restart reads the same files from the same holders:
// it matches scheduler.ErrUnrecoverable, and the Env (or the JobManager,
// for a job of a session cluster) that owns the dataset releases it and
// runs the execution again, recomputing the cache. It crosses a process
// boundary with its dataset (rpc.LostCachedDataset).
type ReadError struct {
	Dataset string
	Err     error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("cache: read dataset %s: %v", e.Dataset, e.Err)
}

func (e *ReadError) Unwrap() []error { return []error{e.Err, scheduler.ErrUnrecoverable} }

// LostCachedDataset names the dataset (rpc.LostCachedDataset).
func (e *ReadError) LostCachedDataset() string { return e.Dataset }

// Lost reports whether err is the failure to read a cached dataset, and
// which: a ReadError, or one that crossed from another process.
func Lost(err error) (dataset string, ok bool) {
	var lost interface {
		error
		LostCachedDataset() string
	}
	if errors.As(err, &lost) && lost.LostCachedDataset() != "" {
		return lost.LostCachedDataset(), true
	}
	return "", false
}

// Reader reads the records of one partition of a dataset, in the order
// they were written, with their timestamps.
type Reader[T any] struct {
	dataset string
	file    *network.PartitionFileReader
	rr      *network.RecordReader[T]
	in      emitInput[T]
	rest    []byte
	// shared is set when the codec decodes into the buffer's memory
	// (strings): each buffer is then copied once into memory of its own
	// that the records alias, instead of one allocation per record.
	shared bool
}

// sharedCodec decodes through DecodeShared: its values alias the buffer,
// which Read allocates for them and never writes again.
type sharedCodec[T any] struct {
	codec.Codec[T]
	sd codec.SharedDecoder[T]
}

func (c sharedCodec[T]) Decode(buf []byte) (T, int, error) { return c.sd.DecodeShared(buf) }

type emitInput[T any] struct{ emit func(ts int64, v T) error }

func (e emitInput[T]) ProcessElement(ts int64, v T) error { return e.emit(ts, v) }

// OpenReader opens partition p of dataset; records go to emit.
func OpenReader[T any](dataset string, p Partition, c codec.Codec[T], emit func(ts int64, v T) error) (*Reader[T], error) {
	f, err := network.OpenPartitionFile(p.Data, p.Index, 0)
	if err != nil {
		return nil, &ReadError{Dataset: dataset, Err: err}
	}
	r := &Reader[T]{dataset: dataset, file: f, in: emitInput[T]{emit}}
	if sd, ok := c.(codec.SharedDecoder[T]); ok {
		c, r.shared = sharedCodec[T]{c, sd}, true
	}
	r.rr = network.NewRecordReader[T](c, r.in)
	return r, nil
}

// Read emits up to about budget records (at least one when any is left)
// and reports whether the partition ended.
func (r *Reader[T]) Read(budget int) (n int, done bool, err error) {
	for n < budget {
		if len(r.rest) == 0 {
			buf, ok, err := r.file.Next()
			if err != nil {
				return n, false, &ReadError{Dataset: r.dataset, Err: err}
			}
			if !ok {
				return n, true, nil
			}
			if r.shared {
				// The file reader reuses buf; the records keep their copy
				// (a live record keeps its buffer's 32 KiB alive).
				buf = bytes.Clone(buf)
			}
			r.rest = buf
		}
		left := budget - n
		k, used, err := r.rr.DeliverUntil(r.rest, nil, nil, func() bool { left--; return left <= 0 })
		n += k
		r.rest = r.rest[used:]
		if err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

// Close closes the partition's file.
func (r *Reader[T]) Close() error { return r.file.Close() }
