package weir

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// JobBuilder builds a job's program into env from the job's own arguments
// (the ones `weir run JOB` does not take for the engine). It parses them
// with its own flag.FlagSet (ParseJobFlags helps), adds sources, operators
// and sinks to env, and returns; it does not call Execute.
//
// A builder must be deterministic: the TaskManagers call it again with the
// same arguments and engine options (already in the embedded mini-cluster
// of `weir run`) and run the operators of their own build; a graph that
// differs from the first build fails the job at deployment. An error it
// returns means the job cannot be built from these arguments; `weir run`
// reports it as a usage error (exit 2).
type JobBuilder func(env *Env, args []string) error

// jobRegistry maps job names to builders. Its methods are safe for concurrent
// use.
type jobRegistry struct {
	mu struct {
		sync.Mutex
		jobs map[string]registeredJob
		// errs are the failed registrations; Main refuses to run while
		// there are any.
		errs []error
	}
}

type registeredJob struct {
	description string
	build       JobBuilder
}

// registeredJobs is the process-wide registry of RegisterJob.
var registeredJobs = &jobRegistry{}

// ErrBadRegistration is wrapped by the errors of RegisterJob.
var ErrBadRegistration = errors.New("weir: bad job registration")

// RegisterJob adds a job to the process-wide registry that `weir run` (in
// any binary that calls Main) and, in a cluster, TaskManagers use. name is
// what `weir run NAME` takes; description is the one line `weir jobs`
// shows next to it, for instance its flags.
//
// RegisterJob is meant to be called from init functions, where a returned
// error is easily dropped: so an empty name, a nil builder or a name
// registered twice does not panic; RegisterJob returns an error wrapping
// ErrBadRegistration, keeps the first registration of the name, and also
// records the error, and Main then refuses to run any command until the
// binary is fixed.
func RegisterJob(name, description string, build JobBuilder) error {
	return registeredJobs.register(name, description, build)
}

// Jobs returns the names of the registered jobs, sorted.
func Jobs() []string { return registeredJobs.names() }

func (r *jobRegistry) register(name, description string, build JobBuilder) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	switch _, dup := r.mu.jobs[name]; {
	case name == "":
		err = fmt.Errorf("%w: empty job name", ErrBadRegistration)
	case build == nil:
		err = fmt.Errorf("%w: job %q has a nil builder", ErrBadRegistration, name)
	case dup:
		err = fmt.Errorf("%w: job %q registered twice", ErrBadRegistration, name)
	}
	if err != nil {
		r.mu.errs = append(r.mu.errs, err)
		return err
	}
	if r.mu.jobs == nil {
		r.mu.jobs = make(map[string]registeredJob)
	}
	r.mu.jobs[name] = registeredJob{description: description, build: build}
	return nil
}

func (r *jobRegistry) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.mu.jobs))
	for n := range r.mu.jobs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (r *jobRegistry) lookup(name string) (registeredJob, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j, ok := r.mu.jobs[name]
	return j, ok
}

// err returns the failed registrations joined, or nil.
func (r *jobRegistry) err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.mu.errs...)
}

// ParseJobFlags parses a builder's args with fs the way `weir run` wants
// them: a bad flag comes back as an error without fs printing its usage
// (weir run reports it on one line and exits 2), and -h or -help prints
// fs's usage and returns flag.ErrHelp (weir run then adds the engine flags
// and exits 0). Help that was asked for goes to stdout, as the tools users
// know print it: fs.Output() is stdout while fs.Usage runs, unless fs has
// an output of its own other than stderr. Create fs with
// flag.ContinueOnError; ParseJobFlags calls fs.Usage, so a custom Usage
// should write to fs.Output().
func ParseJobFlags(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		if out == os.Stderr {
			fs.SetOutput(os.Stdout)
			defer fs.SetOutput(out)
		}
		if fs.Usage != nil {
			fs.Usage()
		} else {
			fmt.Fprintf(fs.Output(), "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
	}
	return err
}
