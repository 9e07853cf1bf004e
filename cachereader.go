package weir

import (
	"fmt"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// cacheReader is the SourceReader of a cache source: it reads its splits,
// whole partitions of a dataset, one after the other.
type cacheReader[T any] struct {
	ctx   ReaderContext[T]
	info  *typeinfo.Of[T]
	queue []cacheSplit
	cur   *cacheSplit
	r     partitionReader
	out   SplitOutput[T]
	// request reads remote splits (nil: there are none).
	request cache.RequestFunc
	// skip is how many records of cur were read before a restore.
	skip int64
	// gate is the test-only hook that holds a remote read (cachereadgate.go).
	gate *readGate
}

func (c *cacheReader[T]) AddSplits(splits []cacheSplit) error {
	c.queue = append(c.queue, splits...)
	return nil
}

func (c *cacheReader[T]) Poll(budget int) (ReadStatus, error) {
	if c.r == nil {
		if len(c.queue) == 0 {
			return ReadFinished, nil
		}
		s := c.queue[0]
		c.queue = c.queue[1:]
		c.cur, c.skip = &s, s.Read
		c.cur.Read = 0
		c.out = c.ctx.Output.ForSplit(c.splitID())
		r, err := c.open(s)
		if err != nil {
			return ReadFinished, err
		}
		c.r = r
		if s.Remote {
			c.gate = newReadGate(s.Dataset, s.Partition)
		}
	}
	if c.gate.held(c.cur.Read) {
		return ReadNothing, nil
	}
	n, done, err := c.r.Read(budget)
	if err != nil {
		return ReadFinished, err
	}
	if n == 0 && !done {
		return ReadNothing, nil // a remote partition's next buffer is on its way
	}
	if done {
		if c.cur.Read != c.cur.Records {
			return ReadFinished, &cache.ReadError{Dataset: c.cur.Dataset,
				Err: fmt.Errorf("partition %d holds %d records, %d were written", c.cur.Partition, c.cur.Read, c.cur.Records)}
		}
		err := c.r.Close()
		c.ctx.Output.ReleaseSplit(c.splitID())
		c.r, c.cur, c.gate = nil, nil, nil
		if err != nil {
			return ReadFinished, err
		}
	}
	return ReadMore, nil
}

// partitionReader reads one partition: of a local file or remote.
type partitionReader interface {
	Read(budget int) (n int, done bool, err error)
	Close() error
}

// open opens the reader of split s.
func (c *cacheReader[T]) open(s cacheSplit) (partitionReader, error) {
	if !s.Remote {
		return cache.OpenReader(s.Dataset, cache.Partition{Data: s.Data, Index: s.Index}, c.info.Codec(), c.emit)
	}
	if c.request == nil {
		return nil, fmt.Errorf("weir: cluster partition %d of dataset %s outside a TaskManager", s.Partition, s.Dataset)
	}
	return cache.OpenRemote(s.Dataset, s.Partition, s.Address, c.request, c.info.Codec(), c.emit)
}

func (c *cacheReader[T]) emit(ts int64, v T) error {
	c.cur.Read++
	if c.cur.Read <= c.skip {
		return nil
	}
	return c.out.Collect(ts, v)
}

func (c *cacheReader[T]) splitID() string {
	return fmt.Sprintf("%s/%d", c.cur.Dataset, c.cur.Partition)
}

var closedChan = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

func (c *cacheReader[T]) Available() <-chan struct{} {
	if ch := c.gate.available(); ch != nil {
		return ch
	}
	if r, ok := c.r.(interface{ Available() <-chan struct{} }); ok {
		return r.Available()
	}
	return closedChan
}

func (c *cacheReader[T]) SnapshotSplits(int64) ([]cacheSplit, error) {
	var out []cacheSplit
	if c.cur != nil {
		out = append(out, *c.cur)
	}
	return append(out, c.queue...), nil
}

func (c *cacheReader[T]) NotifyCheckpointComplete(int64) error { return nil }

func (c *cacheReader[T]) Close() error {
	if c.r != nil {
		return c.r.Close()
	}
	return nil
}
