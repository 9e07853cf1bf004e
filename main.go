package weir

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/weir-engine/weir/internal/cli"
	"github.com/weir-engine/weir/internal/rest"
)

// Main runs the weir command line on os.Args with the jobs registered by
// RegisterJob, and exits the process with its exit code; it does not
// return. A binary that registers its own jobs and calls Main from its
// main function gets the same commands as the weir binary:
//
//	weir run JOB [engine flags] [job flags]   build JOB and run it to the end
//	weir jobs                                 list the registered jobs
//
// Exit codes: 0 when the job finished, 1 when it failed, 2 for usage
// errors (bad flags, an unknown job, a job that cannot be built from its
// arguments), 130 when SIGINT and 143 when SIGTERM canceled the job. Failures print
// one line "weir: <reason>" on stderr; stdout carries only the job's
// output. The command line is documented in full by `weir help run`.
func Main() {
	os.Exit(cli.Main(jobRunner{reg: registeredJobs}))
}

// jobRunner runs registered jobs for the command line: it turns the engine
// flags into Options, calls the job's builder and executes the program.
type jobRunner struct{ reg *jobRegistry }

var _ cli.JobRunner = jobRunner{}

// Jobs implements cli.JobRunner.
func (r jobRunner) Jobs() []cli.JobInfo {
	var out []cli.JobInfo
	for _, name := range r.reg.names() {
		j, _ := r.reg.lookup(name)
		out = append(out, cli.JobInfo{Name: name, Description: j.description})
	}
	return out
}

// Err implements cli.JobRunner.
func (r jobRunner) Err() error { return r.reg.err() }

// Run implements cli.JobRunner.
func (r jobRunner) Run(ctx context.Context, req cli.RunRequest) (cli.RunSummary, error) {
	env, err := r.build(req)
	if err != nil {
		return cli.RunSummary{}, err
	}
	run, err := prepareRun(ctx, env, req.Job, req.Engine, req.Stderr)
	if err != nil {
		var u *cli.UsageError
		if errors.As(err, &u) {
			return cli.RunSummary{}, err
		}
		return cli.RunSummary{}, &jobError{job: req.Job, err: err}
	}
	res, err := execute(ctx, env, req)
	switch {
	case run != nil:
		finishRun(ctx, run, res, err, req.Stderr)
	case err != nil && res != nil && res.Checkpoints.Completed > 0 && req.Stderr != nil:
		fmt.Fprintf(req.Stderr, "job %s %s ended; its checkpoints were in a temporary directory and are gone: with --checkpoint-dir a new run resumes from the newest\n",
			req.Job, res.JobID)
	}
	if res == nil {
		// Execute refused the program before anything ran (for example a
		// batch job with an unbounded source): the arguments are at fault.
		return cli.RunSummary{}, cli.Usage(&jobError{job: req.Job, err: err})
	}
	sum := cli.RunSummary{JobID: res.JobID, Duration: res.Duration, Restarts: res.Restarts, Savepoint: res.Savepoint,
		Vertices: summaryVertices(res.Vertices), Checkpoints: res.Checkpoints.Completed}
	for _, v := range res.Vertices {
		sum.Records += v.RecordsIn
	}
	if err != nil && res.Restarts > 0 {
		err = fmt.Errorf("%w (after %d restarts)", err, res.Restarts)
	}
	return sum, err
}

// build builds the job req.Job from its arguments into a new Env. Its
// errors are UsageErrors, except for help and a builder's panic.
func (r jobRunner) build(req cli.RunRequest) (*Env, error) {
	j, ok := r.reg.lookup(req.Job)
	if !ok {
		return nil, cli.Usage(fmt.Errorf("unknown job %q", req.Job))
	}
	env := NewEnv(engineOptions(req)...)
	if err := env.Err(); err != nil {
		return nil, cli.Usage(err)
	}
	if err := callBuilder(j.build, env, req.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) || errors.Is(err, errBuilderPanic) {
			return nil, &jobError{job: req.Job, err: err}
		}
		return nil, cli.Usage(&jobError{job: req.Job, err: err})
	}
	if err := env.Err(); err != nil {
		return nil, cli.Usage(&jobError{job: req.Job, err: err})
	}
	env.builtBy(r.reg, req.Job, req.Args)
	return env, nil
}

// defaultRESTGrace is how long `weir run --rest-addr` goes on serving
// after its job ended while a client has not read the result of a
// savepoint operation (such as the 'weir stop' that ended the job).
const defaultRESTGrace = 5 * time.Second

// execute runs the job; with --rest-addr it also serves the REST API of
// the embedded mini-cluster (Flink's paths) while the job runs, and after
// it ended until every savepoint operation's result was read, at most the
// grace period (--rest-grace) and not after the run was interrupted.
func execute(ctx context.Context, env *Env, req cli.RunRequest) (*Result, error) {
	if req.Progress != nil && !env.bounded() {
		req.Progress = nil // an unbounded job has no progress to show
	}
	if req.Engine.RestAddr == "" && req.Progress == nil {
		return env.Execute(ctx, req.Job)
	}
	c, err := env.ExecuteAsync(ctx, req.Job)
	if err != nil {
		return nil, err
	}
	if req.Progress != nil {
		defer watchProgress(c, req.Progress)()
	}
	if req.Engine.RestAddr == "" {
		return c.Wait()
	}
	dir := newJobDirectory()
	dir.Add(c)
	srv := rest.NewServer(dir, rest.Options{Logger: env.opts.Logger, Datasets: env.datasets()})
	addr, serr := srv.Start(req.Engine.RestAddr)
	if serr != nil {
		c.Cancel()
		c.Wait()
		return nil, fmt.Errorf("REST API: %w", serr)
	}
	if req.Stderr != nil {
		fmt.Fprintf(req.Stderr, "job %s %s: REST API at http://%s\n", req.Job, c.JobID(), addr)
	}
	res, err := c.Wait()
	grace := req.Engine.RestGrace
	if grace == 0 {
		grace = defaultRESTGrace
	}
	if grace > 0 {
		gctx, cancel := context.WithTimeout(ctx, grace)
		_ = srv.AwaitResultsRead(gctx) // a timeout only ends the wait
		cancel()
	}
	srv.Close()
	return res, err
}

// engineOptions turns the engine flags into Env options.
func engineOptions(req cli.RunRequest) []Option {
	opts := []Option{WithStdout(req.Stdout)}
	if req.Logger != nil {
		opts = append(opts, WithLogger(req.Logger))
	}
	e := req.Engine
	if e.Parallelism > 0 {
		opts = append(opts, WithParallelism(e.Parallelism))
	}
	switch e.Mode {
	case "batch":
		opts = append(opts, WithMode(Batch))
	case "automatic":
		opts = append(opts, WithMode(Automatic))
	}
	if e.TaskManagers > 0 || e.Slots > 0 {
		opts = append(opts, WithMiniCluster(e.TaskManagers, e.Slots))
	}
	if e.NetworkMemory > 0 {
		opts = append(opts, WithNetworkMemory(e.NetworkMemory))
	}
	if e.CheckpointInterval > 0 {
		opts = append(opts, WithCheckpointing(CheckpointConfig{Interval: e.CheckpointInterval, Dir: absLocation(e.CheckpointDir),
			SavepointDir: absLocation(e.SavepointDir)}))
	}
	if e.FromSavepoint != "" || e.AllowNonRestored {
		opts = append(opts, WithRestoreFrom(absLocation(e.FromSavepoint), e.AllowNonRestored))
	}
	if e.Scheduler != "" || e.SchedulerMode != "" {
		opts = append(opts, WithScheduler(e.Scheduler, e.SchedulerMode))
	}
	if e.StateBackend == "pebble" {
		opts = append(opts, WithStateBackend(StateBackend{Kind: Pebble, Incremental: e.Incremental, LocalDir: e.StateDir}))
	}
	return opts
}

// absLocation makes a plain relative path absolute (URLs stay as they are),
// since storage resolves relative locations against its own root.
func absLocation(loc string) string {
	if loc == "" || strings.Contains(loc, "://") || filepath.IsAbs(loc) {
		return loc
	}
	if abs, err := filepath.Abs(loc); err == nil {
		return abs
	}
	return loc
}

// errBuilderPanic marks a builder that panicked: a bug in the job, not in
// its arguments.
var errBuilderPanic = errors.New("builder panicked")

// callBuilder calls build, turning a panic into an error: a bug in one
// job's builder must not crash the command line without a word.
func callBuilder(build JobBuilder, env *Env, args []string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errBuilderPanic, p)
		}
	}()
	return build(env, args)
}

// jobError names the job an error belongs to, dropping the "weir: " prefix
// of engine errors so that the command line's message reads "weir: JOB:
// reason".
type jobError struct {
	job string
	err error
}

func (e *jobError) Error() string {
	return e.job + ": " + strings.TrimPrefix(e.err.Error(), "weir: ")
}

func (e *jobError) Unwrap() error { return e.err }
