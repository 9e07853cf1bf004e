package cache

import (
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/network"
)

// ReadError is the failure of reading a cached dataset: a partition file
// missing or corrupt. The Env that owns the dataset releases it and runs
// the execution again, recomputing the cache.
type ReadError struct {
	Dataset string
	Err     error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("cache: read dataset %s: %v", e.Dataset, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// Lost reports whether err is the failure to read a cached dataset, and
// which.
func Lost(err error) (dataset string, ok bool) {
	var re *ReadError
	if errors.As(err, &re) {
		return re.Dataset, true
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
}

type emitInput[T any] struct{ emit func(ts int64, v T) error }

func (e emitInput[T]) ProcessElement(ts int64, v T) error { return e.emit(ts, v) }

// OpenReader opens partition p of dataset; records go to emit.
func OpenReader[T any](dataset string, p Partition, c codec.Codec[T], emit func(ts int64, v T) error) (*Reader[T], error) {
	f, err := network.OpenPartitionFile(p.Data, p.Index, 0)
	if err != nil {
		return nil, &ReadError{Dataset: dataset, Err: err}
	}
	r := &Reader[T]{dataset: dataset, file: f, in: emitInput[T]{emit}}
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
