package funcspec_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/typeinfo"
	"google.golang.org/protobuf/proto"
)

// pipeline is source -> map of the given parallelism.
func pipeline(t *testing.T, parallelism int) *graph.JobGraph {
	t.Helper()
	ints := typeinfo.New[int]()
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", OutType: ints, Factory: func(any) (any, error) { return nil, nil }}
	m := &graph.Transformation{ID: 2, Kind: graph.KindOperator, Name: "map", OutType: ints, Inputs: []*graph.Transformation{src},
		Chaining: graph.ChainHead, Factory: func(any) (any, error) { return nil, nil }}
	sg, err := graph.Translate([]*graph.Transformation{src, m}, graph.Config{Parallelism: parallelism})
	if err != nil {
		t.Fatal(err)
	}
	return graph.BuildJobGraph(sg)
}

// rescaled is jg at parallelism par by vertex.
func rescaled(t *testing.T, jg *graph.JobGraph, par map[int]int) *graph.JobGraph {
	t.Helper()
	out, err := graph.Rescaled(jg, par)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// crossed is spec as a receiver decodes it.
func crossed(t *testing.T, spec *rpcpb.FunctionSpec) *rpcpb.FunctionSpec {
	t.Helper()
	b, err := proto.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := &rpcpb.FunctionSpec{}
	if err := proto.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestResolveEmbedded(t *testing.T) {
	table := funcspec.NewTable(nil)
	jg := pipeline(t, 2)
	spec, release, err := table.Embed("job-1", jg)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := table.Embed("job-1", pipeline(t, 2)); err == nil {
		t.Fatal("a second graph under job-1 was accepted")
	}
	if got, err := table.Resolve(crossed(t, spec)); err != nil || got != jg {
		t.Fatalf("Resolve = %p, %v; want the embedded graph %p", got, err, jg)
	}
	wrong := crossed(t, spec)
	wrong.GraphFingerprint = pipeline(t, 3).Fingerprint()
	if _, err := table.Resolve(wrong); !errors.Is(err, funcspec.ErrFingerprintMismatch) {
		t.Fatalf("a spec with another fingerprint: err = %v", err)
	}
	release()
	if _, err := table.Resolve(spec); !errors.Is(err, funcspec.ErrUnknown) {
		t.Fatalf("after release: err = %v; want ErrUnknown", err)
	}
	if _, _, err := table.Embed("job-1", jg); err != nil {
		t.Fatalf("embed again after release: %v", err)
	}
}

// job is the registered job name with args and the given parallelism.
func job(name string, parallelism int, args ...string) *rpcpb.RegisteredJob {
	return &rpcpb.RegisteredJob{Name: name, Args: args, Options: &rpcpb.BuildOptions{Parallelism: int32(parallelism)}}
}

func TestResolveRegistered(t *testing.T) {
	builds := 0
	// build builds "pipeline" with the parallelism of its options, or of
	// its first argument when there is one; "drifting" builds a graph one
	// wider each time (a builder that is not deterministic).
	build := func(job *rpcpb.RegisteredJob) (*graph.JobGraph, error) {
		builds++
		switch job.GetName() {
		case "pipeline":
			p := int(job.GetOptions().GetParallelism())
			if args := job.GetArgs(); len(args) > 0 {
				var err error
				if p, err = strconv.Atoi(args[0]); err != nil {
					return nil, err
				}
			}
			return pipeline(t, p), nil
		case "drifting":
			return pipeline(t, builds+1), nil
		}
		return nil, fmt.Errorf("%w: no job %q", funcspec.ErrUnknown, job.GetName())
	}
	cases := []struct {
		name    string
		job     *rpcpb.RegisteredJob
		sender  *graph.JobGraph
		wantErr error
	}{
		{"same graph", job("pipeline", 2), pipeline(t, 2), nil},
		{"same graph again, built once", job("pipeline", 2), pipeline(t, 2), nil},
		{"same graph from arguments", job("pipeline", 1, "2"), pipeline(t, 2), nil},
		{"builder not deterministic", job("drifting", 1), pipeline(t, 1), funcspec.ErrFingerprintMismatch},
		{"other arguments than the sender's graph", job("pipeline", 2, "4"), pipeline(t, 2), funcspec.ErrFingerprintMismatch},
		{"other options than the sender's graph", job("pipeline", 3), pipeline(t, 2), funcspec.ErrFingerprintMismatch},
		{"unknown job", job("missing", 1), pipeline(t, 1), funcspec.ErrUnknown},
		{"rescaled by the adaptive scheduler", funcspec.WithParallelism(job("pipeline", 2), map[int]int{0: 3, 1: 1}),
			rescaled(t, pipeline(t, 2), map[int]int{0: 3, 1: 1}), nil},
		{"rescaled otherwise than the sender's graph", funcspec.WithParallelism(job("pipeline", 2), map[int]int{0: 3, 1: 3}),
			rescaled(t, pipeline(t, 2), map[int]int{0: 3, 1: 1}), funcspec.ErrFingerprintMismatch},
	}
	table := funcspec.NewTable(build)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := table.Resolve(crossed(t, funcspec.Registered(c.job, c.sender)))
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v; want %v", err, c.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%q", c.job.GetName())) {
				t.Errorf("err %q does not name the job %q", err, c.job.GetName())
			}
			if errors.Is(err, funcspec.ErrFingerprintMismatch) && !strings.Contains(err.Error(), c.sender.Fingerprint()) {
				t.Errorf("err %q does not name the sender's fingerprint %s", err, c.sender.Fingerprint())
			}
			if err == nil && got.Fingerprint() != c.sender.Fingerprint() {
				t.Fatalf("resolved graph %s; want %s", got.Fingerprint(), c.sender.Fingerprint())
			}
		})
	}
	if builds != len(cases)-1 {
		t.Fatalf("builder ran %d times; want %d (the same job, arguments and options built once)", builds, len(cases)-1)
	}
	bad := funcspec.Registered(funcspec.WithParallelism(job("pipeline", 2), map[int]int{0: 0}), pipeline(t, 2))
	if _, err := table.Resolve(crossed(t, bad)); err == nil || !strings.Contains(err.Error(), `registered job "pipeline": graph: rescale`) {
		t.Fatalf("a parallelism out of bounds: err = %v; want the job's rescale refused", err)
	}
	if _, err := funcspec.NewTable(nil).Resolve(funcspec.Registered(job("pipeline", 2), pipeline(t, 2))); !errors.Is(err, funcspec.ErrUnknown) {
		t.Fatalf("no builder: err = %v; want ErrUnknown", err)
	}
	if _, err := table.Resolve(&rpcpb.FunctionSpec{}); !errors.Is(err, funcspec.ErrUnknown) {
		t.Fatalf("a spec with no source: err = %v; want ErrUnknown", err)
	}
}

func TestForgetBuildsAgain(t *testing.T) {
	builds := 0
	table := funcspec.NewTable(func(job *rpcpb.RegisteredJob) (*graph.JobGraph, error) {
		builds++
		return pipeline(t, int(job.GetOptions().GetParallelism())), nil
	})
	two, three := funcspec.Registered(job("pipeline", 2), pipeline(t, 2)), funcspec.Registered(job("pipeline", 3), pipeline(t, 3))
	for _, step := range []struct {
		name   string
		forget *rpcpb.FunctionSpec
		builds int
	}{
		{"first resolve builds both", nil, 2},
		{"forgetting one builds only it again", two, 3},
		{"forgetting an embedded spec is a no-op", &rpcpb.FunctionSpec{Source: &rpcpb.FunctionSpec_Embedded{Embedded: &rpcpb.EmbeddedGraph{JobId: "j"}}}, 3},
	} {
		table.Forget(step.forget)
		for _, spec := range []*rpcpb.FunctionSpec{two, three} {
			if _, err := table.Resolve(crossed(t, spec)); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
		}
		if builds != step.builds {
			t.Fatalf("%s: %d builds; want %d", step.name, builds, step.builds)
		}
	}
}

// A TaskManager keeps at most MaxBuilt graphs of registered jobs: the
// least recently resolved is built again when it is needed again.
func TestBuiltGraphsAreBounded(t *testing.T) {
	builds := 0
	table := funcspec.NewTable(func(job *rpcpb.RegisteredJob) (*graph.JobGraph, error) {
		builds++
		return pipeline(t, int(job.GetOptions().GetParallelism())), nil
	})
	spec := func(p int) *rpcpb.FunctionSpec {
		return crossed(t, funcspec.Registered(job("pipeline", p), pipeline(t, p)))
	}
	for _, step := range []struct {
		name        string
		parallelism []int
		builds      int
	}{
		{"one more than the table keeps", seq(1, funcspec.MaxBuilt+1), funcspec.MaxBuilt + 1},
		{"the ones kept are not built again", seq(2, funcspec.MaxBuilt+1), funcspec.MaxBuilt + 1},
		{"the least recently resolved was dropped", []int{1}, funcspec.MaxBuilt + 2},
		{"which dropped the next least recent", []int{2}, funcspec.MaxBuilt + 3},
		{"the most recent stay", []int{funcspec.MaxBuilt + 1, 1, 2}, funcspec.MaxBuilt + 3},
	} {
		for _, p := range step.parallelism {
			if _, err := table.Resolve(spec(p)); err != nil {
				t.Fatalf("%s: parallelism %d: %v", step.name, p, err)
			}
		}
		if builds != step.builds {
			t.Fatalf("%s: %d builds; want %d", step.name, builds, step.builds)
		}
	}
}

// seq is from, from+1, ..., to.
func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// A builder that is not deterministic may build the sender's graph on a
// later call: the table refuses every task of the spec alike all the same,
// so no task of the job runs while others were refused.
func TestMismatchIsRefusedEveryTime(t *testing.T) {
	builds := 0
	table := funcspec.NewTable(func(*rpcpb.RegisteredJob) (*graph.JobGraph, error) {
		builds++
		return pipeline(t, 1+builds%2), nil // 2, 1, 2, ...: the sender's on every other call
	})
	spec := funcspec.Registered(job("alternating", 1), pipeline(t, 1))
	for i := range 3 {
		if _, err := table.Resolve(crossed(t, spec)); !errors.Is(err, funcspec.ErrFingerprintMismatch) {
			t.Fatalf("resolve %d: err = %v; want ErrFingerprintMismatch", i, err)
		}
	}
	if builds != 1 {
		t.Fatalf("builder ran %d times; want 1", builds)
	}
}
