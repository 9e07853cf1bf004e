package funcspec_test

import (
	"errors"
	"strconv"
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

func TestResolveRegistered(t *testing.T) {
	builds := 0
	// parallelismBuilder builds "pipeline" with the parallelism of its
	// first argument; "drifting" builds a graph one wider each time (a
	// builder that is not deterministic).
	build := func(name string, args []string) (*graph.JobGraph, error) {
		builds++
		switch name {
		case "pipeline":
			p, err := strconv.Atoi(args[0])
			if err != nil {
				return nil, err
			}
			return pipeline(t, p), nil
		case "drifting":
			return pipeline(t, builds+1), nil
		}
		return nil, errors.New("no such job")
	}
	cases := []struct {
		name    string
		job     string
		args    []string
		sender  *graph.JobGraph
		wantErr error
	}{
		{"same graph", "pipeline", []string{"2"}, pipeline(t, 2), nil},
		{"same graph again, built once", "pipeline", []string{"2"}, pipeline(t, 2), nil},
		{"builder not deterministic", "drifting", nil, pipeline(t, 1), funcspec.ErrFingerprintMismatch},
		{"other arguments than the sender's graph", "pipeline", []string{"4"}, pipeline(t, 2), funcspec.ErrFingerprintMismatch},
	}
	table := funcspec.NewTable(build)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := table.Resolve(crossed(t, funcspec.Registered(c.job, c.args, c.sender)))
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v; want %v", err, c.wantErr)
			}
			if err == nil && got.Fingerprint() != c.sender.Fingerprint() {
				t.Fatalf("resolved graph %s; want %s", got.Fingerprint(), c.sender.Fingerprint())
			}
		})
	}
	if builds != 3 {
		t.Fatalf("builder ran %d times; want 3 (the same job and arguments built once)", builds)
	}
	if _, err := table.Resolve(funcspec.Registered("missing", nil, pipeline(t, 1))); err == nil || errors.Is(err, funcspec.ErrFingerprintMismatch) {
		t.Fatalf("an unknown job: err = %v; want the builder's error", err)
	}
	if _, err := funcspec.NewTable(nil).Resolve(funcspec.Registered("pipeline", []string{"2"}, pipeline(t, 2))); !errors.Is(err, funcspec.ErrUnknown) {
		t.Fatalf("no builder: err = %v; want ErrUnknown", err)
	}
	if _, err := table.Resolve(&rpcpb.FunctionSpec{}); !errors.Is(err, funcspec.ErrUnknown) {
		t.Fatalf("a spec with no source: err = %v; want ErrUnknown", err)
	}
}
