package minicluster_test

import (
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// endless makes a source that emits nothing and never ends.
const endless = -1

// countSource emits 1..n in each subtask; with n == endless it waits until
// cancelled.
type countSource struct {
	op.Base
	n, next int
	out     op.Output[int]
	never   chan struct{}
	opened  chan<- struct{}
}

// Open tells the test that the subtask runs.
func (s *countSource) Open(*op.Context) error {
	if s.opened != nil {
		s.opened <- struct{}{}
	}
	return nil
}

func (s *countSource) Available() <-chan struct{} { return s.never }

func (s *countSource) PollNext() (op.Status, error) {
	switch {
	case s.n == endless:
		return op.NothingAvailable, nil
	case s.next == s.n:
		return op.EndOfInput, nil
	}
	s.next++
	return op.MoreAvailable, s.out.Collect(op.NoTimestamp, s.next)
}

// discard is a sink that drops its input.
type discard struct{ op.Base }

func (discard) ProcessElement(int64, int) error { return nil }

// sourceToSink is source -> sink, both of the given parallelism, in two
// vertices joined by channels; each source subtask emits n records and,
// when opened is not nil, sends on it once it is open.
func sourceToSink(t *testing.T, parallelism, n int, opened chan<- struct{}) *graph.JobGraph {
	t.Helper()
	ints := typeinfo.New[int]()
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", OutType: ints, Factory: func(out any) (any, error) {
		return &countSource{n: n, out: out.(op.Output[int]), never: make(chan struct{}), opened: opened}, nil
	}}
	sink := &graph.Transformation{ID: 2, Kind: graph.KindOperator, Name: "sink", OutType: ints,
		Inputs: []*graph.Transformation{src}, Chaining: graph.ChainHead,
		Factory: func(any) (any, error) { return discard{}, nil }}
	sg, err := graph.Translate([]*graph.Transformation{src, sink}, graph.Config{Parallelism: parallelism})
	if err != nil {
		t.Fatal(err)
	}
	jg := graph.BuildJobGraph(sg)
	if len(jg.Vertices) != 2 {
		t.Fatalf("job graph has %d vertices, want 2", len(jg.Vertices))
	}
	return jg
}
