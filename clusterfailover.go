package weir

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/cluster"
	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/runner"
	"github.com/weir-engine/weir/internal/scheduler"
)

// The failover of cluster caches (FLIP-205) on the JobManager: a job that
// reads cached datasets from the TaskManagers that hold them fails when it
// cannot (the holder lost mid-read, a partition file missing, truncated or
// failing its checksum: cache.ReadError, unrecoverable, which crosses from
// the TaskManager with its dataset). The JobManager then releases the
// dataset from the ResourceManager's table (its remaining holders delete
// their files), builds the job's program again without reading it, so its
// producers run and write the cache anew, and runs that as the same job
// (cachefailover.go decides, once per dataset). The job's registration
// carries the new build's reads (BuildOptions.cache_reads), so the
// TaskManagers rebuild the same graph. Flink's client re-submits the job
// with its original graph; here the JobManager does, and the job's
// submitter sees one job, RESTARTING between the two runs.

// launchFunc builds the submitted job's program, hiding the datasets hide
// names from its cached streams, and starts it.
type launchFunc func(hide map[string]bool) (*JobClient, error)

// failoverJob is a job of the JobManager that reads cached datasets: it
// runs again, without reading them, when they were lost.
type failoverJob struct {
	id       string
	start    time.Time
	ctx      context.Context
	launch   launchFunc
	datasets cache.ClusterDatasets
	log      *slog.Logger

	mu       sync.Mutex
	cur      *JobClient
	canceled bool
	final    bool
	err      error
	done     chan struct{}
}

var (
	_ cluster.Job           = (*failoverJob)(nil)
	_ cluster.RESTDescriber = (*failoverJob)(nil)
)

// startFailover follows first, the job's first run, and runs it again
// while the failover says so.
func startFailover(ctx context.Context, first *JobClient, datasets cache.ClusterDatasets, launch launchFunc, log *slog.Logger) *failoverJob {
	j := &failoverJob{id: first.JobID(), start: first.StartTime(), ctx: ctx, launch: launch, datasets: datasets, log: log, cur: first, done: make(chan struct{})}
	go j.follow()
	return j
}

// follow waits for each run and decides what follows it.
func (j *failoverJob) follow() {
	var f cacheFailover
	for {
		cur := j.current()
		_, err := cur.Wait()
		j.mu.Lock()
		canceled := j.canceled || j.ctx.Err() != nil
		j.mu.Unlock()
		drop := f.next(executionEnd{err: err, canceled: canceled, reads: clusterReadIDs(cur.caches), incomplete: j.incomplete})
		if len(drop) == 0 {
			j.finish(err)
			return
		}
		for _, ds := range drop {
			j.log.Warn("cached result lost during read: recomputing it and caching it anew",
				"job", cur.Name(), "id", j.id, "dataset", ds, "cause", err)
			j.release(ds)
		}
		next, lerr := j.launch(f.recomputed)
		if lerr != nil {
			j.finish(fmt.Errorf("%w (recomputing the cached results %v lost during its read failed: %w)", err, drop, lerr))
			return
		}
		j.mu.Lock()
		j.cur = next
		if j.canceled {
			next.Cancel()
		}
		j.mu.Unlock()
	}
}

// incomplete reports whether dataset id lost partitions (or is gone) in
// the ResourceManager's table.
func (j *failoverJob) incomplete(id string) bool {
	ds, ok := j.datasets.ClusterDataset(id)
	return !ok || !ds.Complete()
}

// release forgets dataset id in the ResourceManager's table and has its
// holders delete their files.
func (j *failoverJob) release(id string) {
	r, ok := j.datasets.(interface {
		ReleaseDataset(id string) (bool, error)
	})
	if !ok {
		return
	}
	if _, err := r.ReleaseDataset(id); err != nil {
		j.log.Warn("release of a lost cached result", "dataset", id, "err", err)
	}
}

func (j *failoverJob) finish(err error) {
	j.mu.Lock()
	j.final, j.err = true, err
	j.mu.Unlock()
	close(j.done)
}

func (j *failoverJob) current() *JobClient {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cur
}

// clusterReadIDs are the cluster datasets plan reads.
func clusterReadIDs(plan *cachePlan) []string {
	var out []string
	for _, ds := range plan.clusterReads {
		out = append(out, ds.ID)
	}
	return out
}

func (j *failoverJob) JobID() string          { return j.id }
func (j *failoverJob) Name() string           { return j.current().Name() }
func (j *failoverJob) StartTime() time.Time   { return j.start }
func (j *failoverJob) Done() <-chan struct{}  { return j.done }
func (j *failoverJob) Status() runner.Status  { return j.status() }
func (j *failoverJob) RESTInfo() rest.JobInfo { return j.restInfo() }

// Wait waits for the last run's end.
func (j *failoverJob) Wait() error {
	<-j.done
	return j.err
}

func (j *failoverJob) isFinal() (bool, *JobClient) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.final, j.cur
}

// status is the current run's, RESTARTING while a run ended and the next
// is being started.
func (j *failoverJob) status() runner.Status {
	final, cur := j.isFinal()
	s := cur.job.Status()
	if !final && s.State.Terminal() {
		s.State = scheduler.Restarting
	}
	return s
}

// EndTime is when the last run ended; zero before.
func (j *failoverJob) EndTime() time.Time {
	if final, cur := j.isFinal(); final {
		return cur.job.EndTime()
	}
	return time.Time{}
}

func (j *failoverJob) restInfo() rest.JobInfo {
	info := jobInfo(j.current(), j.status())
	info.ID = j.id
	return info
}

// Cancel cancels the job: the current run, and no other.
func (j *failoverJob) Cancel() {
	j.mu.Lock()
	j.canceled = true
	cur := j.cur
	j.mu.Unlock()
	cur.Cancel()
}

func (j *failoverJob) TriggerSavepoint(ctx context.Context, dir string) (string, error) {
	return j.current().TriggerSavepoint(ctx, dir)
}

func (j *failoverJob) StopWithSavepoint(ctx context.Context, dir string, drain bool) (string, error) {
	return j.current().StopWithSavepoint(ctx, dir, drain)
}

// hiddenDatasets is the ResourceManager's table without the datasets a
// failover recomputes: the program built again computes them.
type hiddenDatasets struct {
	cache.ClusterDatasets
	hide map[string]bool
}

func (h hiddenDatasets) ClusterDataset(id string) (cache.ClusterDataset, bool) {
	if h.hide[id] {
		return cache.ClusterDataset{}, false
	}
	return h.ClusterDatasets.ClusterDataset(id)
}
