package weir

import (
	"context"
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/source"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// CachedStream is a stream whose elements are cached the first time an
// execution computes them (FLIP-205): later executions of the same Env
// that use it read the cache instead of running what is upstream of it.
// It embeds the stream, so c.DataStream is usable wherever a DataStream
// is. The cache lives until Invalidate or the Env's Close.
type CachedStream[T any] struct {
	DataStream[T]
	node *cacheNode
}

// ErrCacheNeedsBatch is wrapped by the error of Cache in streaming mode.
var ErrCacheNeedsBatch = errors.New("weir: Cache needs the batch runtime mode")

// cacheNode is what the Env knows of one cached stream.
type cacheNode struct {
	// id names the dataset; name is for logs.
	id, name string
	t        *graph.Transformation
	// writer returns the factory of the cache node that writes a new
	// dataset in prod (nil prod: forward only).
	writer func(prod *cache.Production) graph.Factory
	// reader returns the source that reads ds in place of the node.
	reader func(ds *cache.Dataset) *graph.Transformation
	// readParallelism is the parallelism the cache is read at (0: the
	// parallelism it was written at).
	readParallelism int
	// persistent: the dataset is named by its lineage's fingerprint and
	// kept in the cache directory (WithCacheDir).
	persistent bool
	// cluster: the dataset is named by its lineage's fingerprint and kept
	// as cluster partitions of a session cluster (cachecluster.go);
	// remote returns the source that reads them in place of the node.
	cluster bool
	remote  func(ds cache.ClusterDataset, request cache.RequestFunc) *graph.Transformation
}

// Cache caches s, a stream or a side output, for later executions of its
// Env, which must run in batch mode (Batch, or Automatic with bounded
// sources): the first execution that computes s writes its elements, with
// their timestamps, to local disk as it passes them on, and later ones read
// them back at any parallelism (see SetReadParallelism). In streaming mode
// it records an error wrapping ErrCacheNeedsBatch in the Env, as any
// construction error (TryCache returns it instead). A stream read from a
// cache keeps neither watermarks nor the order across subtasks.
func Cache[T any](s DataStream[T]) CachedStream[T] {
	c, err := TryCache(s)
	if err != nil && s.env != nil {
		s.env.fail(err)
	}
	return c
}

// TryCache is Cache that returns its error and leaves the Env usable.
func TryCache[T any](s DataStream[T]) (CachedStream[T], error) {
	switch {
	case !s.ok():
		return CachedStream[T]{DataStream: DataStream[T]{env: s.env}}, errors.New("weir: Cache of an invalid stream")
	case s.env.opts.Mode == Streaming:
		return CachedStream[T]{DataStream: DataStream[T]{env: s.env}}, fmt.Errorf(
			"%w: %v runs in streaming mode, whose pipelined exchanges keep no result to cache; use WithMode(weir.Batch) or weir.Automatic with bounded sources", ErrCacheNeedsBatch, s.t)
	}
	in := s.t
	d := derive[T](s.env, &graph.Transformation{
		Kind: graph.KindOperator, Name: "Cache", Inputs: []*graph.Transformation{in}, OutType: in.OutType,
	})
	if in.Kind == graph.KindSource || in.Kind == graph.KindOperator {
		// Same parallelism as the cached operator: a forward edge, chained.
		d.t.Parallelism = in.Parallelism
	}
	node := &cacheNode{id: datasetID(s.env, d.t.ID), name: in.String(), t: d.t}
	if s.env.opts.CacheDir != "" || s.env.cluster.on() {
		if fp, ok, blocker := s.env.lineageFingerprint(d.t); ok {
			node.id = fp
			node.persistent, node.cluster = !s.env.cluster.on(), s.env.cluster.on()
		} else {
			s.env.opts.Logger.Info("cache kept for this program only: a source upstream does not say what it reads",
				"stream", node.name, "source", blocker)
		}
	}
	codecOf := typeinfo.New[T]()
	node.writer = func(prod *cache.Production) graph.Factory {
		return func(out any) (any, error) {
			if err := codecOf.Err(); err != nil {
				return nil, fmt.Errorf("weir: Cache: elements cannot be encoded: %w", err)
			}
			return cache.NewWriter(prod, codecOf.Codec(), out.(op.Output[T])), nil
		}
	}
	node.reader = func(ds *cache.Dataset) *graph.Transformation {
		return cacheSource[T](localSplits(ds), d.t, node.readParallelism, nil)
	}
	node.remote = func(ds cache.ClusterDataset, request cache.RequestFunc) *graph.Transformation {
		return cacheSource[T](remoteSplits(ds), d.t, node.readParallelism, request)
	}
	d.t.Factory = node.writer(nil)
	s.env.cacheNodes()[d.t.ID] = node
	return CachedStream[T]{DataStream: d, node: node}, nil
}

// SetReadParallelism sets how many subtasks read the cache in later
// executions (default: as many as wrote it); the cached partitions are
// dealt out to them as splits.
func (c CachedStream[T]) SetReadParallelism(n int) CachedStream[T] {
	if c.node != nil {
		if n < 1 {
			c.env.fail(fmt.Errorf("weir: read parallelism %d of %v must be at least 1", n, c.t))
			return c
		}
		c.node.readParallelism = n
	}
	return c
}

// Invalidate releases the cache: its files are deleted. The stream stays
// usable: the next execution that uses it computes it again, and caches it
// again. On a session cluster the JobManager's build of a job releases
// the dataset through the ResourceManager's table, as DELETE
// /datasets/:id does (the TaskManagers that hold it delete its files); a
// TaskManager's rebuild of the job does nothing and returns nil, since
// the JobManager released it already (see clusterInvalidate).
func (c CachedStream[T]) Invalidate(ctx context.Context) error {
	if c.node == nil {
		return errors.New("weir: Invalidate of an invalid cached stream")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.env.cluster.on() {
		return c.env.clusterInvalidate(c.node)
	}
	return c.env.registryOf(c.node).Release(c.node.id)
}

// IsCached reports whether the cache was created (and not released): the
// next execution that uses the stream reads it. On a session cluster it
// reports whether the ResourceManager's table has the dataset complete
// (the JobManager's build) or whether the job reads it (a TaskManager's
// rebuild: the JobManager's decision, so both build the same graph).
func (c CachedStream[T]) IsCached() bool {
	if c.node == nil {
		return false
	}
	if c.env.cluster.on() {
		return c.env.clusterIsCached(c.node)
	}
	_, ok := c.env.registryOf(c.node).Lookup(c.node.id)
	return ok
}

// CachedKeyedStream is a keyed stream whose elements are cached as a
// CachedStream's; later executions read the cache and partition it by the
// same key again.
type CachedKeyedStream[K comparable, T any] struct {
	KeyedStream[K, T]
	cached CachedStream[T]
}

// CacheKeyed caches the elements of a keyed stream (see Cache).
func CacheKeyed[K comparable, T any](ks KeyedStream[K, T]) CachedKeyedStream[K, T] {
	if !ks.ok() || len(ks.t.Inputs) != 1 {
		return CachedKeyedStream[K, T]{KeyedStream: KeyedStream[K, T]{DataStream: invalid[T](ks.env, errors.New("weir: CacheKeyed of an invalid stream"))}}
	}
	c := Cache(DataStream[T]{env: ks.env, t: ks.t.Inputs[0]})
	if !c.ok() {
		return CachedKeyedStream[K, T]{KeyedStream: KeyedStream[K, T]{DataStream: c.DataStream}, cached: c}
	}
	return CachedKeyedStream[K, T]{KeyedStream: KeyBy(c.DataStream, ks.key), cached: c}
}

// Invalidate releases the cache (see CachedStream.Invalidate).
func (c CachedKeyedStream[K, T]) Invalidate(ctx context.Context) error {
	return c.cached.Invalidate(ctx)
}

// IsCached reports whether the cache was created.
func (c CachedKeyedStream[K, T]) IsCached() bool { return c.cached.IsCached() }

// Close releases every cache of the Env: their files are deleted, except
// those kept in the cache directory (WithCacheDir) for later programs.
// The Env may still execute, without caching.
func (e *Env) Close() error {
	var errs []error
	for _, r := range []*cache.Registry{e.caches, e.persistentCaches} {
		if r != nil {
			errs = append(errs, r.Close())
		}
	}
	return errors.Join(errs...)
}

// cacheRegistry returns the Env's own datasets, made at first use.
func (e *Env) cacheRegistry() *cache.Registry {
	if e.caches == nil {
		e.caches = cache.NewRegistry(cache.Options{Dir: e.opts.StateBackend.LocalDir, Logger: e.opts.Logger,
			MaxPartitionBytes: e.opts.cacheMaxPartitionBytes, Quota: e.opts.CacheQuota})
	}
	return e.caches
}

// registryOf returns the registry of node's dataset: the cache
// directory's for a persistent cache, the Env's own otherwise.
func (e *Env) registryOf(node *cacheNode) *cache.Registry {
	if !node.persistent {
		return e.cacheRegistry()
	}
	return e.persistentRegistry()
}

// persistentRegistry returns the datasets of the cache directory.
func (e *Env) persistentRegistry() *cache.Registry {
	if e.persistentCaches == nil {
		e.persistentCaches = cache.NewRegistry(cache.Options{Dir: e.opts.CacheDir, Persistent: true, Logger: e.opts.Logger,
			MaxPartitionBytes: e.opts.cacheMaxPartitionBytes, Quota: e.opts.CacheQuota})
	}
	return e.persistentCaches
}

// datasets returns the Env's registries for the REST API (/datasets),
// made now so that the server never races an execution making them.
func (e *Env) datasets() cache.Registries {
	rs := cache.Registries{e.cacheRegistry()}
	if e.opts.CacheDir != "" {
		rs = append(rs, e.persistentRegistry())
	}
	return rs
}

// releaseDataset releases dataset id, whichever registry holds it.
func (e *Env) releaseDataset(id string) error {
	var errs []error
	for _, r := range []*cache.Registry{e.caches, e.persistentCaches} {
		if r != nil {
			errs = append(errs, r.Release(id))
		}
	}
	return errors.Join(errs...)
}

func (e *Env) cacheNodes() map[int]*cacheNode {
	if e.cached == nil {
		e.cached = make(map[int]*cacheNode)
	}
	return e.cached
}

// cacheNodeOf returns the cache node t stands for (a copy of it made for
// an execution included: copies keep the ID), or nil.
func (e *Env) cacheNodeOf(t *graph.Transformation) *cacheNode {
	if t.Kind != graph.KindOperator {
		return nil // the source that reads a cache has the node's ID
	}
	return e.cached[t.ID]
}

// datasetID names the dataset of the cache node with the given
// transformation id: unique per Env, 32 hex characters.
func datasetID(e *Env, id int) string {
	if e.envID == "" {
		e.envID = NewJobID()[:24]
	}
	return fmt.Sprintf("%s%08x", e.envID, id)
}

// cacheSplit is one partition of a dataset and how many of its records
// were read (a checkpoint's position). A remote one is a cluster
// partition, read over the data plane from Address.
type cacheSplit struct {
	Dataset   string
	Partition int
	Data      string
	Index     string
	Records   int64
	Read      int64
	Remote    bool
	Address   string
}

// localSplits are the splits of a dataset of this process.
func localSplits(ds *cache.Dataset) []cacheSplit {
	splits := make([]cacheSplit, len(ds.Partitions))
	for i, part := range ds.Partitions {
		splits[i] = cacheSplit{Dataset: ds.ID, Partition: i, Data: part.Data, Index: part.Index, Records: part.Records}
	}
	return splits
}

// cacheSource returns the source that reads splits in place of the cache
// node t, at parallelism p (0: one subtask per partition); request reads
// remote splits.
func cacheSource[T any](splits []cacheSplit, t *graph.Transformation, p int, request cache.RequestFunc) *graph.Transformation {
	if p == 0 {
		p = len(splits)
	}
	info := typeinfo.New[T]()
	src := SplitSource[T, cacheSplit]{
		Name:    "Cache source: " + t.Inputs[0].String(),
		Splits:  func(int) ([]cacheSplit, error) { return splits, nil },
		Dynamic: true,
		NewSourceReader: func(rc ReaderContext[T]) (SourceReader[T, cacheSplit], error) {
			return &cacheReader[T]{ctx: rc, info: info, request: request}, nil
		},
	}
	spec := src.spec()
	return &graph.Transformation{
		ID: t.ID, Kind: graph.KindSource, Name: src.Name, OutType: t.OutType, Bounded: true, Parallelism: p,
		Factory:    func(out any) (any, error) { return source.New(spec, out.(op.Output[T])), nil },
		Enumerator: source.NewEnumeratorFactory(spec),
	}
}
