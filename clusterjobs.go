package weir

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/cli"
	"github.com/weir-engine/weir/internal/cluster"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rest/api"
	"github.com/weir-engine/weir/internal/runner"
	"github.com/weir-engine/weir/internal/scheduler"
)

// The cluster processes (`weir jobmanager`, `weir taskmanager`) reach the
// registered jobs through jobRunner's cluster.Jobs: the TaskManagers
// rebuild a job's graph with the builder of this binary, and the
// JobManager builds the submitted job with the same engine options as
// `weir run` and executes it on its session cluster.

var _ cluster.Jobs = jobRunner{}

// Builder implements cluster.Jobs.
func (r jobRunner) Builder(stdout io.Writer, log *slog.Logger) funcspec.Builder {
	if stdout == nil {
		stdout = os.Stdout
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return r.reg.rebuilder(local{stdout: stdout, logger: rebuildLogger(log)})
}

var _ cluster.CachingJobs = jobRunner{}

// CachingBuilder implements cluster.CachingJobs: Builder whose jobs'
// cached streams keep and read the TaskManager's cluster partitions.
func (r jobRunner) CachingBuilder(stdout io.Writer, log *slog.Logger, p cache.TaskManagerPartitions) funcspec.Builder {
	if stdout == nil {
		stdout = os.Stdout
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return r.reg.rebuilder(local{stdout: stdout, logger: rebuildLogger(log), partitions: &p})
}

// Start implements cluster.Jobs. A job that reads cached datasets of the
// cluster runs again without reading them when they are lost while it
// reads them (clusterfailover.go).
func (r jobRunner) Start(ctx context.Context, s api.JobSubmission, l cluster.Launch, run runner.Runner, log *slog.Logger) (cluster.Job, error) {
	c, err := r.launch(ctx, s, l, run, log, l.JobID, l.Datasets)
	if err != nil {
		return nil, err
	}
	if l.Datasets == nil || len(c.caches.clusterReads) == 0 {
		return clusterJob{c}, nil
	}
	return startFailover(ctx, c, l.Datasets, func(hide map[string]bool) (*JobClient, error) {
		return r.launch(ctx, s, l, run, log, NewJobID(), hiddenDatasets{ClusterDatasets: l.Datasets, hide: hide})
	}, log), nil
}

// launch builds the submitted job as run jobID, with the cluster's
// datasets, and starts it.
func (r jobRunner) launch(ctx context.Context, s api.JobSubmission, l cluster.Launch, run runner.Runner, log *slog.Logger,
	jobID string, datasets cache.ClusterDatasets) (*JobClient, error) {
	j, ok := r.reg.lookup(s.Job)
	if !ok {
		return nil, rest.BadSubmission(fmt.Errorf("no job %q is registered in the JobManager's binary", s.Job))
	}
	flags, err := cli.EngineFlagsOf(s.Options)
	if err != nil {
		return nil, rest.BadSubmission(err)
	}
	opts := append(engineOptions(cli.RunRequest{Job: s.Job, Args: s.Args, Engine: flags, Stdout: os.Stdout, Logger: log}),
		WithJobID(jobID), WithLineage(l.Lineage))
	env := NewEnv(opts...)
	env.runner = run
	env.cluster.datasets = datasets
	if err := env.Err(); err != nil {
		return nil, rest.BadSubmission(err)
	}
	if err := callBuilder(j.build, env, s.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			err = errors.New("the job's help was asked for")
		}
		return nil, rest.BadSubmission(&jobError{job: s.Job, err: err})
	}
	if err := env.Err(); err != nil {
		return nil, rest.BadSubmission(&jobError{job: s.Job, err: err})
	}
	env.builtBy(r.reg, s.Job, s.Args)
	c, err := env.ExecuteAsync(ctx, s.Job)
	if err != nil {
		return nil, rest.BadSubmission(&jobError{job: s.Job, err: err})
	}
	return c, nil
}

// clusterJob is a JobClient as the JobManager's dispatcher tracks it.
type clusterJob struct{ *JobClient }

// Status is the job's status; a job seen ended has its cached streams
// promoted to cluster partitions (or released) first.
func (j clusterJob) Status() runner.Status {
	st := j.job.Status()
	if st.State.Terminal() {
		j.settle(st.State == scheduler.Finished)
	}
	return st
}

func (j clusterJob) EndTime() time.Time { return j.job.EndTime() }
func (j clusterJob) Wait() error {
	_, err := j.JobClient.Wait()
	return err
}

// RESTInfo implements cluster.RESTDescriber: a job of the JobManager is
// described as one of `weir run --rest-addr` is, with its graph's edges,
// subtasks and checkpoint configuration.
func (j clusterJob) RESTInfo() rest.JobInfo { return jobInfo(j.JobClient, j.Status()) }
