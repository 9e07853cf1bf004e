package minicluster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// builds is a registered job builder for these tests: "pipeline" is a
// source of n records per subtask into a sink, at the parallelism of the
// job's options; "drifting" is the same one subtask wider at every build
// (a builder that is not deterministic). The sinks of each build count
// into that build's counter, so a test sees whose operators ran.
type builds struct {
	n  int
	mu sync.Mutex
	// received[i] counts the records the sinks of build i+1 took.
	received []*atomic.Int64
}

func (b *builds) build(t *testing.T) funcspec.Builder {
	return func(job *rpcpb.RegisteredJob) (*graph.JobGraph, error) {
		b.mu.Lock()
		b.received = append(b.received, new(atomic.Int64))
		nth, counter := len(b.received), b.received[len(b.received)-1]
		b.mu.Unlock()
		p := int(job.GetOptions().GetParallelism())
		switch job.GetName() {
		case "pipeline":
		case "drifting":
			p += nth
		default:
			return nil, fmt.Errorf("%w: no job %q is registered", funcspec.ErrUnknown, job.GetName())
		}
		return countingPipeline(t, p, b.n, counter), nil
	}
}

// counts is the records each build's sinks took, in the order of builds.
func (b *builds) counts() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []int64
	for _, c := range b.received {
		out = append(out, c.Load())
	}
	return out
}

// countingSink counts its input.
type countingSink struct {
	op.Base
	n *atomic.Int64
}

func (s countingSink) ProcessElement(int64, int) error { s.n.Add(1); return nil }

// countingPipeline is source -> sink of the given parallelism, the sinks
// counting into received.
func countingPipeline(t *testing.T, parallelism, n int, received *atomic.Int64) *graph.JobGraph {
	t.Helper()
	ints := typeinfo.New[int]()
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", OutType: ints, Factory: func(out any) (any, error) {
		return &countSource{n: n, out: out.(op.Output[int]), never: make(chan struct{})}, nil
	}}
	sink := &graph.Transformation{ID: 2, Kind: graph.KindOperator, Name: "sink", OutType: ints,
		Inputs: []*graph.Transformation{src}, Chaining: graph.ChainHead,
		Factory: func(any) (any, error) { return countingSink{n: received}, nil }}
	sg, err := graph.Translate([]*graph.Transformation{src, sink}, graph.Config{Parallelism: parallelism})
	if err != nil {
		t.Fatal(err)
	}
	return graph.BuildJobGraph(sg)
}

// A registered job is deployed by reference: the TaskManagers build the
// graph again with the cluster's builder and run the operators of their
// own build, never the submitter's.
func TestRegisteredJobRunsTheRebuiltGraph(t *testing.T) {
	const n, parallelism = 50, 2
	b := &builds{n: n}
	job := &rpcpb.RegisteredJob{Name: "pipeline", Options: &rpcpb.BuildOptions{Parallelism: parallelism}}
	jg, err := b.build(t)(job) // the submitter's build
	if err != nil {
		t.Fatal(err)
	}
	res := minicluster.Run(context.Background(), "job", jg, minicluster.Options{TaskManagers: 2, Slots: 1, Registered: job, Builder: b.build(t)})
	if res.Status != scheduler.Finished || res.Err != nil {
		t.Fatalf("status %s, err %v; want FINISHED", res.Status, res.Err)
	}
	// One build on the submitter's side, one for the TaskManagers' process
	// (they share its table); the submitter's operators took nothing.
	if got, want := b.counts(), []int64{0, parallelism * n}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("records taken by the sinks of each build: %v; want %v", got, want)
	}
}

// A deployment whose spec the TaskManagers cannot resolve to the
// JobMaster's graph fails the job at once, restart strategy or not, with
// an error that says why.
func TestRegisteredJobThatCannotBeRebuiltFails(t *testing.T) {
	cases := []struct {
		name    string
		job     string
		want    error
		text    []string
		restart scheduler.RestartStrategy
	}{
		{"builder not deterministic", "drifting", funcspec.ErrFingerprintMismatch, []string{`registered job "drifting"`, "graph fingerprint mismatch"}, nil},
		{"not deterministic, with restarts", "drifting", funcspec.ErrFingerprintMismatch, []string{`registered job "drifting"`}, &scheduler.FixedDelay{Attempts: 3, Delay: time.Millisecond}},
		{"unknown name", "nosuchjob", funcspec.ErrUnknown, []string{`no job "nosuchjob" is registered`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &builds{n: 5}
			job := &rpcpb.RegisteredJob{Name: c.job, Options: &rpcpb.BuildOptions{Parallelism: 1}}
			// The submitter's graph: a pipeline of parallelism 1.
			jg := countingPipeline(t, 1, 5, new(atomic.Int64))
			res := minicluster.Run(context.Background(), "job", jg, minicluster.Options{Restart: c.restart, Registered: job, Builder: b.build(t)})
			if res.Status != scheduler.Failed || !errors.Is(res.Err, c.want) {
				t.Fatalf("status %s, err %v; want FAILED with %v", res.Status, res.Err, c.want)
			}
			for _, s := range c.text {
				if !strings.Contains(res.Err.Error(), s) {
					t.Errorf("err %q does not say %q", res.Err, s)
				}
			}
			if errors.Is(c.want, funcspec.ErrFingerprintMismatch) && !strings.Contains(res.Err.Error(), jg.Fingerprint()) {
				t.Errorf("err %q does not name the JobMaster's fingerprint %s", res.Err, jg.Fingerprint())
			}
			if res.Restarts != 0 {
				t.Errorf("%d restarts; want none (a restart deploys the same spec)", res.Restarts)
			}
		})
	}
}
