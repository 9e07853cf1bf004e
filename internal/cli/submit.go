package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/weir-engine/weir/internal/cluster"
	"github.com/weir-engine/weir/internal/rest/api"
)

// `weir run JOB --jobmanager HOST:PORT` submits the job to a cluster over
// its JobManager's REST API (POST /jobs, api.JobSubmission) instead of
// running it embedded: the JobManager's binary builds the job, its
// TaskManagers rebuild it. With --detach the command prints the job id and
// returns; otherwise it prints the id, follows the job to its end and
// exits with its status.

// clusterOnlyFlags are engine flags that size or serve the embedded
// mini-cluster: a submission has no use for them.
var clusterOnlyFlags = []struct {
	name string
	set  func(EngineFlags) bool
}{
	{"taskmanagers", func(f EngineFlags) bool { return f.TaskManagers > 0 }},
	{"slots", func(f EngineFlags) bool { return f.Slots > 0 }},
	{"network-memory", func(f EngineFlags) bool { return f.NetworkMemory > 0 }},
	{"process-memory", func(f EngineFlags) bool { return f.ProcessMemory > 0 }},
	{"rest-addr", func(f EngineFlags) bool { return f.RestAddr != "" }},
	{"fresh", func(f EngineFlags) bool { return f.Fresh }},
}

// Submission is the REST body of the engine flags of a submitted job.
func (f EngineFlags) Submission() (api.EngineOptions, error) {
	for _, c := range clusterOnlyFlags {
		if c.set(f) {
			return api.EngineOptions{}, fmt.Errorf("--%s configures the embedded mini-cluster: a cluster's JobManager and TaskManagers have their own", c.name)
		}
	}
	if f.StateDir != "" {
		return api.EngineOptions{}, cluster.ErrStateDir
	}
	o := api.EngineOptions{
		Parallelism: f.Parallelism, Mode: f.Mode, CheckpointDir: absLocation(f.CheckpointDir), SavepointDir: absLocation(f.SavepointDir),
		FromSavepoint: absLocation(f.FromSavepoint), AllowNonRestored: f.AllowNonRestored, StateBackend: f.StateBackend,
		Incremental: f.Incremental,
	}
	if f.CheckpointInterval > 0 {
		o.CheckpointInterval = f.CheckpointInterval.String()
	}
	return o, nil
}

// EngineFlagsOf are the engine flags of a submission, checked as the
// command line checks them.
func EngineFlagsOf(o api.EngineOptions) (EngineFlags, error) {
	var args []string
	add := func(name, v string) {
		if v != "" {
			args = append(args, "--"+name+"="+v)
		}
	}
	if o.Parallelism != 0 {
		add("parallelism", fmt.Sprint(o.Parallelism))
	}
	add("mode", o.Mode)
	add("checkpoint-interval", o.CheckpointInterval)
	add("checkpoint-dir", o.CheckpointDir)
	add("savepoint-dir", o.SavepointDir)
	add("from-savepoint", o.FromSavepoint)
	add("state-backend", o.StateBackend)
	add("state-dir", o.StateDir)
	if o.AllowNonRestored {
		args = append(args, "--allow-non-restored-state")
	}
	if o.Incremental {
		args = append(args, "--incremental")
	}
	if o.CheckpointInterval == "" {
		// The JobManager's default directories matter only with
		// checkpoints.
		args = dropFlags(args, "--checkpoint-dir=", "--savepoint-dir=")
	}
	ra, err := ParseRunArgs(args)
	if err != nil {
		return EngineFlags{}, err
	}
	return ra.Engine, nil
}

// dropFlags removes the arguments with any of the prefixes.
func dropFlags(args []string, prefixes ...string) []string {
	out := args[:0]
	for _, a := range args {
		keep := true
		for _, p := range prefixes {
			if strings.HasPrefix(a, p) {
				keep = false
			}
		}
		if keep {
			out = append(out, a)
		}
	}
	return out
}

// submitJob runs `weir run` against a cluster.
func submitJob(ctx context.Context, ra RunArgs, stdout, stderr io.Writer) error {
	opts, err := ra.Engine.Submission()
	if err != nil {
		return Usage(fmt.Errorf("run: %w", err))
	}
	return withJobManager("run", ra.Engine.JobManager, func(jm *jobManager) error {
		id, err := jm.submit(ctx, api.JobSubmission{Job: ra.Job, Args: ra.JobArgs, Options: opts})
		if ae, ok := errors.AsType[*answerError](err); ok && ae.status == http.StatusBadRequest {
			// The job cannot be built from the command line: exit 2, as
			// for an embedded run.
			return Usage(err)
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, id)
		if ra.Engine.Detach {
			return nil
		}
		return jm.follow(ctx, id, ra.Job, stderr)
	})
}

// submit posts a job and returns its id.
func (jm *jobManager) submit(ctx context.Context, s api.JobSubmission) (string, error) {
	var out api.SubmitResponse
	if err := jm.call(ctx, http.MethodPost, "/jobs", s, http.StatusOK, &out); err != nil {
		return "", err
	}
	if checkJobID(out.JobID) != nil {
		return "", fmt.Errorf("unexpected answer from %s: job id %q", jm.addr, out.JobID)
	}
	return out.JobID, nil
}

// followPoll is the time between two looks at a followed job.
const followPoll = 200 * time.Millisecond

// follow waits for job id to end: nil when it finished, an error with the
// reason otherwise. A JobManager that stops answering ends the wait with
// its error.
func (jm *jobManager) follow(ctx context.Context, id, name string, stderr io.Writer) error {
	restarts := 0
	for {
		var d api.JobDetails
		if err := jm.call(ctx, http.MethodGet, "/jobs/"+id, nil, http.StatusOK, &d); err != nil {
			return err
		}
		switch d.State {
		case "FINISHED":
			return nil
		case "FAILED", "CANCELED":
			return fmt.Errorf("job %s %s %s%s", name, id, strings.ToLower(d.State), jm.reason(ctx, id))
		case "RESTARTING":
			if restarts == 0 {
				fmt.Fprintf(stderr, "job %s %s is restarting%s\n", name, id, jm.reason(ctx, id))
			}
			restarts++
		default:
			restarts = 0
		}
		select {
		case <-time.After(followPoll):
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// reason is ": <root exception>" of a job, or "".
func (jm *jobManager) reason(ctx context.Context, id string) string {
	var e api.JobExceptions
	if err := jm.call(ctx, http.MethodGet, "/jobs/"+id+"/exceptions", nil, http.StatusOK, &e); err != nil || e.RootException == nil {
		return ""
	}
	return ": " + strings.ReplaceAll(strings.TrimSpace(*e.RootException), "\n", " | ")
}

// absLocation makes a plain relative path absolute against this
// process's directory (URLs stay as they are): the JobManager and the
// TaskManagers have directories of their own.
func absLocation(loc string) string {
	if loc == "" || strings.Contains(loc, "://") || filepath.IsAbs(loc) {
		return loc
	}
	if abs, err := filepath.Abs(loc); err == nil {
		return abs
	}
	return loc
}
