package minicluster_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// sessionJob is source -> sink at a parallelism, for the session cluster's
// tests: every source subtask emits 1..n, tells opened, and then ends once
// release is closed, or, with holdFirst, in attempts after the first
// only (the first waits until cancelled). The sinks record what each
// attempt received.
type sessionJob struct {
	n, parallelism int
	holdFirst      bool
	opened         chan struct{}
	release        chan struct{}

	mu  sync.Mutex
	got map[int][]int
}

func newSessionJob(n, parallelism int) *sessionJob {
	return &sessionJob{n: n, parallelism: parallelism, opened: make(chan struct{}, 4*parallelism),
		release: make(chan struct{}), got: make(map[int][]int)}
}

// waitOpened waits until every source subtask of an attempt emitted its
// records.
func (j *sessionJob) waitOpened() {
	for range j.parallelism {
		<-j.opened
	}
}

// received is what the sinks of attempt received, sorted.
func (j *sessionJob) received(attempt int) []int {
	j.mu.Lock()
	defer j.mu.Unlock()
	got := slices.Clone(j.got[attempt])
	slices.Sort(got)
	return got
}

// complete is what the sinks of an attempt that ran to its end received.
func (j *sessionJob) complete() []int {
	var w []int
	for range j.parallelism {
		for v := 1; v <= j.n; v++ {
			w = append(w, v)
		}
	}
	slices.Sort(w)
	return w
}

type heldSource struct {
	j             *sessionJob
	attempt, next int
	out           op.Output[int]
	never         chan struct{}
}

func (s *heldSource) Open(c *op.Context) error {
	s.attempt = c.Attempt
	return nil
}
func (s *heldSource) Finish() error { return nil }
func (s *heldSource) Close() error  { return nil }

func (s *heldSource) held() bool { return s.j.holdFirst && s.attempt == 0 }

func (s *heldSource) Available() <-chan struct{} {
	if s.held() {
		return s.never
	}
	return s.j.release
}

func (s *heldSource) PollNext() (op.Status, error) {
	if s.next < s.j.n {
		s.next++
		return op.MoreAvailable, s.out.Collect(op.NoTimestamp, s.next)
	}
	if s.next == s.j.n {
		s.next++
		s.j.opened <- struct{}{}
	}
	if s.held() {
		return op.NothingAvailable, nil
	}
	select {
	case <-s.j.release:
		return op.EndOfInput, nil
	default:
		return op.NothingAvailable, nil
	}
}

type attemptSink struct {
	op.Base
	j       *sessionJob
	attempt int
}

func (s *attemptSink) Open(c *op.Context) error {
	s.attempt = c.Attempt
	return nil
}

func (s *attemptSink) ProcessElement(_ int64, v int) error {
	s.j.mu.Lock()
	defer s.j.mu.Unlock()
	s.j.got[s.attempt] = append(s.j.got[s.attempt], v)
	return nil
}

func (j *sessionJob) graph(t *testing.T) *graph.JobGraph {
	t.Helper()
	ints := typeinfo.New[int]()
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", OutType: ints, Factory: func(out any) (any, error) {
		return &heldSource{j: j, out: out.(op.Output[int]), never: make(chan struct{})}, nil
	}}
	sink := &graph.Transformation{ID: 2, Kind: graph.KindOperator, Name: "sink", OutType: ints,
		Inputs: []*graph.Transformation{src}, Chaining: graph.ChainHead,
		Factory: func(any) (any, error) { return &attemptSink{j: j}, nil }}
	sg, err := graph.Translate([]*graph.Transformation{src, sink}, graph.Config{Parallelism: j.parallelism})
	if err != nil {
		t.Fatal(err)
	}
	return graph.BuildJobGraph(sg)
}
