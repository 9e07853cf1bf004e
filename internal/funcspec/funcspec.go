// Package funcspec resolves the function specs of task deployments: the
// reference a TaskDeploymentDescriptor carries in place of the operators
// (Go closures, which no message can carry) to the job graph whose vertex
// the task runs.
//
// A spec is either embedded, naming a graph that a Table of the same
// process holds (the embedded mini-cluster: the JobMaster and its
// TaskManagers share the process and the Table), or registered, naming a
// job builder (weir.RegisterJob), the arguments to build the graph with and
// the engine options that shape it, which any process of the same binary can
// do: a Table given a Builder calls the builder again on a fresh Env and
// runs the operators of that graph, not the sender's. Both carry the graph's
// fingerprint (graph.JobGraph.Fingerprint): the resolver refuses a graph
// whose fingerprint differs from the sender's, for a builder that is not
// deterministic or a binary that is not the same.
package funcspec

import (
	"errors"
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/protobuf/proto"
)

// Errors of Resolve.
var (
	// ErrFingerprintMismatch: the graph resolved is not the sender's.
	ErrFingerprintMismatch = errors.New("funcspec: graph fingerprint mismatch")
	// ErrUnknown: the spec names nothing this process has.
	ErrUnknown = errors.New("funcspec: unknown function spec")
)

// Builder builds the job graph of the registered job that job names, from
// its arguments and with its options. A name that is not registered gives
// an error wrapping ErrUnknown.
type Builder func(job *rpcpb.RegisteredJob) (*graph.JobGraph, error)

// Table holds the graphs of the jobs embedded in this process, by job id,
// and builds (once per name, arguments and fingerprint) the graphs of
// registered jobs. It keeps at most MaxBuilt built graphs: past that, the
// least recently resolved is dropped (a later Resolve of its spec builds it
// again), so a TaskManager that runs many registered jobs, or one job
// through many parallelisms, holds a bounded number of graphs. It is safe
// for concurrent use.
type Table struct {
	build Builder
	mu    struct {
		sync.Mutex
		embedded map[string]*graph.JobGraph
		built    map[string]*builtGraph
		clock    uint64 // counts resolves: the recency of built graphs
	}
}

// MaxBuilt is how many built graphs of registered jobs a Table keeps.
const MaxBuilt = 16

// builtGraph is a registered job's graph and when it was last resolved.
type builtGraph struct {
	jg   *graph.JobGraph
	used uint64
}

// NewTable returns a table that builds registered jobs with build (nil:
// registered specs are refused).
func NewTable(build Builder) *Table {
	t := &Table{build: build}
	t.mu.embedded = map[string]*graph.JobGraph{}
	t.mu.built = map[string]*builtGraph{}
	return t
}

// Embed keeps jg as the graph of job jobID until release is called, and
// returns its spec. A job id that is already embedded is refused.
func (t *Table) Embed(jobID string, jg *graph.JobGraph) (spec *rpcpb.FunctionSpec, release func(), err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.mu.embedded[jobID]; dup {
		return nil, nil, fmt.Errorf("funcspec: job %q is already embedded", jobID)
	}
	t.mu.embedded[jobID] = jg
	var once sync.Once
	release = func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			delete(t.mu.embedded, jobID)
		})
	}
	return &rpcpb.FunctionSpec{
		Source:           &rpcpb.FunctionSpec_Embedded{Embedded: &rpcpb.EmbeddedGraph{JobId: jobID}},
		GraphFingerprint: jg.Fingerprint(),
	}, release, nil
}

// Registered returns the spec of a job built by the registered builder
// that job names, whose graph is jg.
func Registered(job *rpcpb.RegisteredJob, jg *graph.JobGraph) *rpcpb.FunctionSpec {
	return &rpcpb.FunctionSpec{
		Source:           &rpcpb.FunctionSpec_Registered{Registered: job},
		GraphFingerprint: jg.Fingerprint(),
	}
}

// WithParallelism returns job with the parallelism par of every vertex,
// by vertex id: the adaptive scheduler's generation at other
// parallelisms than the builder's. The receiver rescales the graph it
// builds to par (graph.Rescaled) before it checks the fingerprint.
func WithParallelism(job *rpcpb.RegisteredJob, par map[int]int) *rpcpb.RegisteredJob {
	out := proto.CloneOf(job)
	out.Parallelism = make(map[int32]int32, len(par))
	for v, p := range par {
		out.Parallelism[int32(v)] = int32(p)
	}
	return out
}

// Resolve returns the graph spec names, checked against its fingerprint.
func (t *Table) Resolve(spec *rpcpb.FunctionSpec) (*graph.JobGraph, error) {
	var jg *graph.JobGraph
	switch s := spec.GetSource().(type) {
	case *rpcpb.FunctionSpec_Embedded:
		t.mu.Lock()
		jg = t.mu.embedded[s.Embedded.GetJobId()]
		t.mu.Unlock()
		if jg == nil {
			return nil, fmt.Errorf("%w: no embedded job %q in this process", ErrUnknown, s.Embedded.GetJobId())
		}
	case *rpcpb.FunctionSpec_Registered:
		var err error
		if jg, err = t.registered(s.Registered, spec.GetGraphFingerprint()); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: a spec with no source", ErrUnknown)
	}
	if got := jg.Fingerprint(); got != spec.GetGraphFingerprint() {
		return nil, fmt.Errorf("%w: %s has graph %s here, the sender's is %s (a job builder that is not deterministic, or another binary)",
			ErrFingerprintMismatch, describe(spec), got, spec.GetGraphFingerprint())
	}
	return jg, nil
}

// registered builds, or finds built, the graph of a registered job.
func (t *Table) registered(r *rpcpb.RegisteredJob, fingerprint string) (*graph.JobGraph, error) {
	if t.build == nil {
		return nil, fmt.Errorf("%w: registered job %q: this process builds no registered jobs", ErrUnknown, r.GetName())
	}
	key, err := builtKey(r, fingerprint)
	if err != nil {
		return nil, err
	}
	if jg := t.lookupBuilt(key); jg != nil {
		return jg, nil
	}
	jg, err := t.build(r)
	if err != nil {
		return nil, fmt.Errorf("funcspec: build registered job %q: %w", r.GetName(), err)
	}
	if p := r.GetParallelism(); len(p) > 0 {
		par := make(map[int]int, len(p))
		for v, n := range p {
			par[int(v)] = int(n)
		}
		if jg, err = graph.Rescaled(jg, par); err != nil {
			return nil, fmt.Errorf("funcspec: registered job %q: %w", r.GetName(), err)
		}
	}
	// The graph is kept even when its fingerprint is not the sender's: a
	// builder that is not deterministic could match on a later call, and
	// then some tasks of the job would run while others were refused.
	// Kept, every task of the job is refused alike until Forget (or until
	// the graph is the least recently resolved of more than MaxBuilt).
	t.mu.Lock()
	defer t.mu.Unlock()
	t.mu.clock++
	if prev := t.mu.built[key]; prev != nil {
		prev.used = t.mu.clock
		return prev.jg, nil // built concurrently: every task of the job shares one graph
	}
	t.mu.built[key] = &builtGraph{jg: jg, used: t.mu.clock}
	t.evictLocked()
	return jg, nil
}

// lookupBuilt returns the graph built under key, or nil, and marks it used.
func (t *Table) lookupBuilt(key string) *graph.JobGraph {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.mu.built[key]
	if b == nil {
		return nil
	}
	t.mu.clock++
	b.used = t.mu.clock
	return b.jg
}

// evictLocked drops the least recently resolved built graphs beyond
// MaxBuilt. Tasks that run keep the graph they resolved; only a later
// deployment of the dropped spec builds it again.
func (t *Table) evictLocked() {
	for len(t.mu.built) > MaxBuilt {
		var oldest string
		var used uint64
		for k, b := range t.mu.built {
			if oldest == "" || b.used < used {
				oldest, used = k, b.used
			}
		}
		delete(t.mu.built, oldest)
	}
}

// Forget drops the graph built for a registered spec (its job ended): a
// later Resolve of the spec builds it again. Other specs are left alone.
func (t *Table) Forget(spec *rpcpb.FunctionSpec) {
	r := spec.GetRegistered()
	if r == nil {
		return
	}
	key, err := builtKey(r, spec.GetGraphFingerprint())
	if err != nil {
		return // never built either
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.mu.built, key)
}

// builtKey is the key of a registered job's graph among the built ones:
// its name, arguments and options, and the fingerprint.
func builtKey(r *rpcpb.RegisteredJob, fingerprint string) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("funcspec: registered job %q: %w", r.GetName(), err)
	}
	return string(b) + "\x00" + fingerprint, nil
}

func describe(spec *rpcpb.FunctionSpec) string {
	switch s := spec.GetSource().(type) {
	case *rpcpb.FunctionSpec_Embedded:
		return fmt.Sprintf("embedded job %q", s.Embedded.GetJobId())
	case *rpcpb.FunctionSpec_Registered:
		return fmt.Sprintf("registered job %q %q", s.Registered.GetName(), s.Registered.GetArgs())
	}
	return "spec"
}
