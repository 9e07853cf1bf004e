package weir

import (
	"context"

	"github.com/weir-engine/weir/internal/cli"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// SetTextSplitSize sets the size of text file splits until the returned
// function restores it, so that tests see lines cross split boundaries.
func SetTextSplitSize(n int64) (restore func()) {
	old := textSplitSize
	textSplitSize = n
	return func() { textSplitSize = old }
}

// RunRegistered runs req as `weir run` does (Main's path through the
// registry), on a registry that holds only jobs.
func RunRegistered(ctx context.Context, jobs map[string]JobBuilder, req cli.RunRequest) (cli.RunSummary, error) {
	return jobRunner{reg: registryOf(jobs)}.Run(ctx, req)
}

// Rebuild builds job again as a TaskManager does, on a registry that holds
// only jobs.
func Rebuild(jobs map[string]JobBuilder, job *rpcpb.RegisteredJob) (*graph.JobGraph, error) {
	return registryOf(jobs).rebuilder(local{})(job)
}

func registryOf(jobs map[string]JobBuilder) *jobRegistry {
	reg := &jobRegistry{}
	for name, build := range jobs {
		if err := reg.register(name, "", build); err != nil {
			panic(err)
		}
	}
	return reg
}

// WithTaskClock runs the job's tasks on c, a fake processing-time clock
// that the test advances (state TTL, processing-time timers).
func WithTaskClock(c clock.Clock) Option { return func(o *Options) { o.taskClock = c } }

// JobGraphOf translates what e's next execution would run, for tests that
// run it on a session mini-cluster of their own.
func JobGraphOf(e *Env) (*graph.JobGraph, error) { return e.jobGraph() }

// WithCachePartitionLimit bounds each partition of a cache to n bytes: a
// partition that grows past it fails to write as on a full disk.
func WithCachePartitionLimit(n int64) Option {
	return func(o *Options) { o.cacheMaxPartitionBytes = n }
}

// CacheFiles returns the data and index files of c's cache (none when it
// was not created).
func CacheFiles[T any](c CachedStream[T]) []string {
	ds, ok := c.env.cacheRegistry().Lookup(c.node.id)
	if !ok {
		return nil
	}
	var out []string
	for _, p := range ds.Partitions {
		out = append(out, p.Data, p.Index)
	}
	return out
}
