package cluster

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rest/api"
	"github.com/weir-engine/weir/internal/runner"
	"github.com/weir-engine/weir/internal/scheduler"
)

// Jobs is what the cluster processes need of the binary's registered jobs;
// the root package implements it over weir.RegisterJob's registry.
type Jobs interface {
	// Builder rebuilds registered jobs, for a TaskManager's deployments:
	// their Print output goes to stdout, their logs to log.
	Builder(stdout io.Writer, log *slog.Logger) funcspec.Builder
	// Start builds the submitted job and starts it on r as the run l;
	// ctx bounds the job. An error that wraps rest.ErrBadSubmission means
	// the submission cannot run as given (an unknown job, arguments its
	// builder refused).
	Start(ctx context.Context, s api.JobSubmission, l Launch, r runner.Runner, log *slog.Logger) (Job, error)
}

// CachingJobs is Jobs whose TaskManager builder gives the cached streams
// of jobs the TaskManager's cluster partitions (see
// TaskManagerConfig.CachingBuilder).
type CachingJobs interface {
	CachingBuilder(stdout io.Writer, log *slog.Logger, p cache.TaskManagerPartitions) funcspec.Builder
}

// Job is a job the Dispatcher started.
type Job interface {
	JobID() string
	Name() string
	StartTime() time.Time
	Status() runner.Status
	EndTime() time.Time
	Done() <-chan struct{}
	Cancel()
	TriggerSavepoint(ctx context.Context, dir string) (string, error)
	StopWithSavepoint(ctx context.Context, dir string, drain bool) (string, error)
	// Wait waits for the job's end and releases what it held.
	Wait() error
}

// Dispatcher accepts jobs and runs each on the session cluster with a
// JobMaster of its own (Flink's Dispatcher); it is the REST server's
// rest.Dispatcher, rest.Submitter and rest.ClusterReporter.
type Dispatcher struct {
	*Directory[Job]
	jobs    Jobs
	cluster *minicluster.Cluster
	runner  runner.Runner
	// defaults fills the options a submission leaves empty.
	defaults api.EngineOptions
	// ha keeps the jobs in the HA store (harecover.go).
	ha     *ha
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var (
	_ rest.Dispatcher        = (*Dispatcher)(nil)
	_ rest.Submitter         = (*Dispatcher)(nil)
	_ rest.ClusterReporter   = (*Dispatcher)(nil)
	_ rest.TaskManagerLister = (*Dispatcher)(nil)
)

func newDispatcher(jobs Jobs, c *minicluster.Cluster, r runner.Runner, defaults api.EngineOptions, h *ha, log *slog.Logger) *Dispatcher {
	d := &Dispatcher{Directory: NewDirectory(JobInfo), jobs: jobs, cluster: c, runner: r, defaults: defaults, ha: h, log: log}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	return d
}

// Submit implements rest.Submitter: the job runs until it ends, is
// cancelled, or the JobManager closes. It is in the HA store before it
// starts.
func (d *Dispatcher) Submit(_ context.Context, s api.JobSubmission) (string, error) {
	if s.Options.StateDir != "" {
		return "", rest.BadSubmission(ErrStateDir)
	}
	if s.Options.CheckpointDir == "" {
		s.Options.CheckpointDir = d.defaults.CheckpointDir
	}
	if s.Options.SavepointDir == "" {
		s.Options.SavepointDir = d.defaults.SavepointDir
	}
	id := newJobID()
	if err := d.ha.submitted(id, s); err != nil {
		return "", err
	}
	j, err := d.jobs.Start(d.ctx, s, Launch{JobID: id, Datasets: d.cluster}, d.runner, d.log)
	if err != nil {
		d.ha.forget(id)
		return "", err
	}
	d.log.Info("job submitted", "job", s.Job, "id", id, "args", s.Args)
	d.track(j, s.Job)
	return id, nil
}

// track lists j and records its end in the HA store, unless it ended
// because the JobManager is shutting down: the next one recovers it.
func (d *Dispatcher) track(j Job, name string) {
	id := j.JobID()
	d.Add(j)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		err := j.Wait()
		state := j.Status().State
		if d.ctx.Err() != nil && state != scheduler.Finished {
			d.log.Info("job suspended: the JobManager shuts down", "job", name, "id", id, "state", state)
			return
		}
		d.ha.ended(id, haState(state), err)
		d.log.Info("job ended", "job", name, "id", id, "state", state, "err", err)
	}()
}

// close cancels the running jobs and waits for their ends.
func (d *Dispatcher) close() {
	d.cancel()
	d.wg.Wait()
}

// Cluster implements rest.ClusterReporter.
func (d *Dispatcher) Cluster() rest.ClusterInfo {
	tms := d.cluster.TaskManagers()
	info := rest.ClusterInfo{TaskManagers: len(tms)}
	for _, tm := range tms {
		info.SlotsTotal += tm.Slots
		info.SlotsAvailable += tm.Free
	}
	return info
}

// TaskManagers implements rest.TaskManagerLister: every TaskManager
// registered with the ResourceManager, with the jobs in its slots.
func (d *Dispatcher) TaskManagers() []rest.TaskManagerInfo {
	statuses := d.Statuses(Job.Status)
	usedBy := map[string][]string{}
	for _, tm := range TaskManagersOf(statuses) {
		usedBy[tm.ID] = tm.Jobs
	}
	tms := d.cluster.TaskManagers()
	out := make([]rest.TaskManagerInfo, 0, len(tms))
	for _, tm := range tms {
		out = append(out, rest.TaskManagerInfo{ID: tm.ID, Slots: tm.Slots, Free: tm.Free, NetworkMemory: tm.Network.Memory, Jobs: usedBy[tm.ID]})
	}
	slices.SortFunc(out, func(a, b rest.TaskManagerInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}
