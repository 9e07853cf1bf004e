package weir

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/graph"
)

// cachePlan is what one execution does with caches: the datasets it reads
// in place of their upstream, and those it creates.
type cachePlan struct {
	reads []string
	prods []*cache.Production
	// clusterReads are the datasets of cluster partitions it reads
	// (cachecluster.go); clusterWrites, whether it writes some.
	clusterReads  []cache.ClusterDataset
	clusterWrites bool
	// clusterJob is the table told that the job writes production
	// (startClusterJob), to be told how it ended.
	clusterJob cache.ClusterDatasets
	production int64
	log        *slog.Logger
}

// commit makes the datasets the execution created complete (it finished).
func (p *cachePlan) commit() {
	for _, prod := range p.prods {
		prod.Registry().Commit(prod)
	}
	p.prods = nil
	p.endClusterJob(true)
}

// abort removes what the execution wrote of its datasets (it failed, or
// did not start).
func (p *cachePlan) abort() {
	for _, prod := range p.prods {
		prod.Abort()
	}
	p.prods = nil
	p.endClusterJob(false)
}

// startClusterJob tells the session cluster's table that the job, about
// to start, writes its cached streams as production: as in Flink, they
// become cluster partitions only if it finishes (commit), and are
// released otherwise (abort).
func (p *cachePlan) startClusterJob(table cache.ClusterDatasets, production int64, log *slog.Logger) error {
	if table == nil {
		return nil
	}
	if len(p.clusterReads) > 0 {
		ids := make([]string, len(p.clusterReads))
		for i, ds := range p.clusterReads {
			ids[i] = ds.ID
		}
		if err := table.DatasetsRead(ids); err != nil {
			log.Warn("the ResourceManager was not told of the cached streams a job reads", "datasets", ids, "error", err)
		}
	}
	if !p.clusterWrites {
		return nil
	}
	if err := table.CachingJobStarted(production); err != nil {
		return fmt.Errorf("weir: register the production of cached streams: %w", err)
	}
	p.clusterJob, p.production, p.log = table, production, log
	return nil
}

// endClusterJob tells the table how the job of startClusterJob ended.
func (p *cachePlan) endClusterJob(finished bool) {
	if p.clusterJob == nil {
		return
	}
	if err := p.clusterJob.CachingJobEnded(p.production, finished); err != nil {
		p.log.Warn("the ResourceManager was not told how a job writing cached streams ended", "production", p.production, "error", err)
	}
	p.clusterJob = nil
}

// readCaches replaces every cache node the sinks reach whose dataset is
// complete with a source of the dataset, so nothing upstream of it runs.
// A dataset whose files are missing or damaged is not read; with release
// it is released too, with a warning, and its stream computed again.
func (e *Env) readCaches(sinks []*graph.Transformation, release bool) ([]*graph.Transformation, *cachePlan) {
	plan := &cachePlan{}
	if len(e.cached) == 0 {
		return sinks, plan
	}
	out := graph.Substitute(sinks, func(t *graph.Transformation) (*graph.Transformation, bool) {
		node := e.cacheNodeOf(t)
		if node == nil {
			return t, true
		}
		if node.cluster {
			return e.readClusterCache(node, t, plan, release)
		}
		reg := e.registryOf(node)
		ds, ok := reg.Lookup(node.id)
		if !ok {
			return t, true
		}
		if err := ds.Check(); err != nil {
			if release {
				e.opts.Logger.Warn("cached result lost or damaged: computing it again and caching it anew",
					"dataset", ds.ID, "stream", node.name, "error", err)
				_ = reg.Release(ds.ID)
			}
			return t, true
		}
		plan.reads = append(plan.reads, ds.ID)
		return node.reader(ds), false
	})
	if len(plan.reads) > 0 {
		e.opts.Logger.Info("execution reads cached results", "datasets", plan.reads)
	}
	if len(plan.clusterReads) > 0 && release {
		for _, ds := range plan.clusterReads {
			e.opts.Logger.Info("execution reads cached results from the TaskManagers that keep them", "dataset", ds.ID, "partitions", len(ds.Partitions))
		}
	}
	return out, plan
}

// writeCaches gives every cache node the sinks reach a writer of a new
// dataset, recorded in plan; it runs only for batch executions.
func (e *Env) writeCaches(sinks []*graph.Transformation, plan *cachePlan) ([]*graph.Transformation, error) {
	if len(e.cached) == 0 {
		return sinks, nil
	}
	out := graph.Substitute(sinks, func(t *graph.Transformation) (*graph.Transformation, bool) {
		node := e.cacheNodeOf(t)
		if node == nil {
			return t, true
		}
		p := t.Parallelism
		if p == 0 {
			p = e.opts.Parallelism
		}
		if node.cluster {
			plan.clusterWrites = true
			return e.writeClusterCache(node, t, p), true
		}
		if e.cluster.on() {
			return t, true // not kept: its lineage has no fingerprint
		}
		reg := e.registryOf(node)
		prod, err := reg.Begin(node.id, node.name, p)
		if errors.Is(err, cache.ErrClosed) {
			return t, true // the Env was closed: compute without caching
		}
		if err != nil {
			e.opts.Logger.Warn("cannot create the cache; the execution goes on without it", "stream", node.name, "error", err)
			return t, true
		}
		plan.prods = append(plan.prods, prod)
		c := *t
		c.Factory = node.writer(prod)
		return &c, true
	})
	return out, nil
}

// producesCaches reports whether the next execution, of sinks, creates a
// cache (CollectN then lets it finish instead of cancelling it).
func (e *Env) producesCaches(sinks []*graph.Transformation) bool {
	if len(e.cached) == 0 || e.opts.Mode == Streaming {
		return false
	}
	reads, _ := e.readCaches(sinks, false)
	produces := false
	for _, t := range graph.Upstream(reads) {
		if t.Kind == graph.KindSource && !t.Bounded {
			return false // a streaming execution creates no cache
		}
		produces = produces || e.cacheNodeOf(t) != nil
	}
	return produces
}
