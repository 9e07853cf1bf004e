package weir

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// A program that `weir run` built with a registered JobBuilder is deployed
// by reference, as it must be in a cluster (DESIGN.md, "How user code
// reaches TaskManagers"): its tasks carry the job's name, arguments and the
// engine options that shape the graph (a funcspec registered spec), and
// the TaskManagers call the builder again on a fresh Env to get operators
// of their own, checking the rebuilt graph's fingerprint against the
// JobMaster's. A program that calls Execute itself has no registration
// and its graph stays embedded in the process.

// registration is how an Env's program was built: by the builder
// registered under name in reg, from args.
type registration struct {
	reg  *jobRegistry
	name string
	args []string
}

// builtBy records that the builder registered under name in reg built the
// program of e from args: its next execution deploys by reference.
func (e *Env) builtBy(reg *jobRegistry, name string, args []string) {
	e.registration = &registration{reg: reg, name: name, args: args}
}

// takeRegistration returns the spec message of e's registered program and
// the builder that rebuilds it, and forgets the registration (nil, nil
// without one): a builder builds one job, so only the execution that
// follows it can be rebuilt from it.
func (e *Env) takeRegistration() (*rpcpb.RegisteredJob, funcspec.Builder) {
	r := e.registration
	e.registration = nil
	if r == nil {
		return nil, nil
	}
	job := &rpcpb.RegisteredJob{Name: r.name, Args: r.args, Options: &rpcpb.BuildOptions{
		Parallelism: int32(e.opts.Parallelism), MaxParallelism: int32(e.opts.MaxParallelism),
		Batch: e.opts.Mode == Batch, DisableChaining: e.opts.DisableChaining, Lineage: e.opts.Lineage,
	}}
	return job, r.reg.rebuilder(local{stdout: e.opts.Stdout, logger: rebuildLogger(e.opts.Logger), accumulators: e.accumulators})
}

// local is what a rebuilt program takes from the process it runs in
// rather than from the message: where Print writes, the logger, and the
// counters of user functions (here the submitting Env's, so that its
// Result reports them; a TaskManager of another process would report them
// as metrics).
type local struct {
	stdout       io.Writer
	logger       *slog.Logger
	accumulators *accumulators
	// partitions are the TaskManager's cluster partitions, for the cached
	// streams of jobs on a session cluster (cachecluster.go).
	partitions *cache.TaskManagerPartitions
}

// rebuilder returns the funcspec.Builder that builds the registered jobs of
// r again, on a fresh Env with the options of the message and the
// process-local ones of l.
func (r *jobRegistry) rebuilder(l local) funcspec.Builder {
	return func(job *rpcpb.RegisteredJob) (*graph.JobGraph, error) {
		name := job.GetName()
		j, ok := r.lookup(name)
		if !ok {
			return nil, fmt.Errorf("%w: no job %q is registered in this binary", funcspec.ErrUnknown, name)
		}
		o := job.GetOptions()
		mode := Streaming
		if o.GetBatch() {
			mode = Batch
		}
		opts := []Option{WithParallelism(int(o.GetParallelism())), WithMaxParallelism(int(o.GetMaxParallelism())), WithMode(mode),
			WithLineage(o.GetLineage()), WithStdout(l.stdout), WithLogger(l.logger)}
		if o.GetDisableChaining() {
			opts = append(opts, WithoutChaining())
		}
		env := NewEnv(opts...)
		if l.accumulators != nil {
			env.accumulators = l.accumulators
		}
		if l.partitions != nil {
			env.cluster = rebuiltCaches(l.partitions, o)
		}
		if err := env.Err(); err != nil {
			return nil, fmt.Errorf("rebuild job %q: %w", name, err)
		}
		if err := callBuilder(j.build, env, job.GetArgs()); err != nil {
			return nil, fmt.Errorf("rebuild job %q with arguments %q: %w", name, job.GetArgs(), err)
		}
		jg, err := env.jobGraph()
		if err != nil {
			return nil, fmt.Errorf("rebuild job %q with arguments %q: %w", name, job.GetArgs(), err)
		}
		return jg, nil
	}
}

// rebuildLogger is the logger of a rebuilt Env: l without the records
// below Error. A deterministic builder's warnings (an empty input file,
// say) were logged by the first build already; each rebuild in this
// process would only repeat them.
func rebuildLogger(l *slog.Logger) *slog.Logger {
	return slog.New(errorsOnly{l.Handler()})
}

// errorsOnly passes on the records of Error level and above.
type errorsOnly struct{ slog.Handler }

func (h errorsOnly) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelError && h.Handler.Enabled(ctx, level)
}

func (h errorsOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	return errorsOnly{h.Handler.WithAttrs(attrs)}
}

func (h errorsOnly) WithGroup(name string) slog.Handler { return errorsOnly{h.Handler.WithGroup(name)} }
