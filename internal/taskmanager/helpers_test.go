package taskmanager_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// errBoom is what a failing source returns.
var errBoom = errors.New("boom")

// endless makes a source that emits nothing and never ends: it stays
// RUNNING until cancelled, without sending on any channel.
const endless = -1

// intSource emits 1..n and ends; with n == endless it waits for ever. With
// fail set it fails on its first poll. It forwards checkpoint
// notifications to notified.
type intSource struct {
	op.Base
	n, next  int
	fail     bool
	out      op.Output[int]
	never    chan struct{}
	notified chan<- string
}

func (s *intSource) Available() <-chan struct{} { return s.never }

func (s *intSource) PollNext() (op.Status, error) {
	switch {
	case s.fail:
		return op.EndOfInput, errBoom
	case s.n == endless:
		return op.NothingAvailable, nil
	case s.next == s.n:
		return op.EndOfInput, nil
	}
	s.next++
	return op.MoreAvailable, s.out.Collect(op.NoTimestamp, s.next)
}

func (s *intSource) NotifyCheckpointComplete(id int64) error {
	s.notified <- fmt.Sprintf("complete(%d)", id)
	return nil
}

func (s *intSource) NotifyCheckpointAborted(id int64) error {
	s.notified <- fmt.Sprintf("aborted(%d)", id)
	return nil
}

// discard is a sink that drops its input.
type discard struct{ op.Base }

func (discard) ProcessElement(int64, int) error { return nil }

// job is a tiny job graph with what its operators report.
type job struct {
	graph *graph.JobGraph
	// notified receives the source's checkpoint notifications.
	notified chan string
}

// sourceSpec says what the job's source does.
type sourceSpec struct {
	n    int
	fail bool
}

// sourceOnly is a job of one vertex: a source whose subtask has no
// channels.
func sourceOnly(t *testing.T, s sourceSpec) job {
	t.Helper()
	return build(t, s, false)
}

// sourceToSink is a job of two vertices, source -> sink, each of
// parallelism one, joined by one channel.
func sourceToSink(t *testing.T, s sourceSpec) job {
	t.Helper()
	return build(t, s, true)
}

func build(t *testing.T, s sourceSpec, withSink bool) job {
	t.Helper()
	j := job{notified: make(chan string, 8)}
	ints := typeinfo.New[int]()
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", OutType: ints, Factory: func(out any) (any, error) {
		return &intSource{n: s.n, fail: s.fail, out: out.(op.Output[int]), never: make(chan struct{}), notified: j.notified}, nil
	}}
	ts := []*graph.Transformation{src}
	if withSink {
		ts = append(ts, &graph.Transformation{ID: 2, Kind: graph.KindOperator, Name: "sink", OutType: ints,
			Inputs: []*graph.Transformation{src}, Chaining: graph.ChainHead,
			Factory: func(any) (any, error) { return discard{}, nil }})
	}
	sg, err := graph.Translate(ts, graph.Config{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	j.graph = graph.BuildJobGraph(sg)
	if len(j.graph.Vertices) != len(ts) {
		t.Fatalf("job graph has %d vertices, want %d", len(j.graph.Vertices), len(ts))
	}
	return j
}

// buffersOf is what subtask 0 of the given vertices of jg takes from the
// pool under the default sizing.
func buffersOf(jg *graph.JobGraph, vertices ...int) int {
	n := 0
	for _, v := range vertices {
		n += network.SubtaskUsage(jg.Vertices[v], 0).Buffers(network.DefaultSizing)
	}
	return n
}

// reports collects the reports of the subtasks of one deployment.
type reports chan taskmanager.Report

// next waits for the next report; the subtask goroutine sends it, so the
// test waits for an event rather than for time.
func (r reports) next(t *testing.T) taskmanager.Report {
	t.Helper()
	return <-r
}

// expect waits for the next report and checks its state.
func (r reports) expect(t *testing.T, want scheduler.ExecutionState) taskmanager.Report {
	t.Helper()
	rep := r.next(t)
	if rep.State != want {
		t.Fatalf("subtask %v reported %s (err %v), want %s", rep.ID, rep.State, rep.Err, want)
	}
	return rep
}

// none checks that no report is pending; call it once the subtask's
// goroutine ended (after Close), so that it cannot miss a late one.
func (r reports) none(t *testing.T) {
	t.Helper()
	select {
	case rep := <-r:
		t.Fatalf("unexpected report %s of subtask %v", rep.State, rep.ID)
	default:
	}
}

// acks is a CheckpointResponder that hands acknowledgements, with the
// handles they carry, and declines to the test.
type acks struct {
	acked    chan int64
	states   chan storage.TaskState
	declined chan int64
	errs     chan error
}

func newAcks() *acks {
	return &acks{acked: make(chan int64, 4), states: make(chan storage.TaskState, 4), declined: make(chan int64, 4), errs: make(chan error, 4)}
}

func (a *acks) Acknowledge(id int64, st storage.TaskState) {
	a.states <- st
	a.acked <- id
}

func (a *acks) Decline(id int64, err error, _ storage.TaskState) {
	a.errs <- err
	a.declined <- id
}

func (a *acks) EndOfData() {}

// newStorage returns a checkpoint storage in a temporary directory,
// closed when the test ends.
func newStorage(t *testing.T) *storage.Storage {
	t.Helper()
	st, err := storage.Open(context.Background(), t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// checkpointAt returns the barrier of checkpoint id of "job" in st, with
// the location its tasks write into.
func checkpointAt(t *testing.T, st *storage.Storage, id int64) network.CheckpointBarrier {
	t.Helper()
	dir, err := st.CreateCheckpointWriter("job", id)
	if err != nil {
		t.Fatal(err)
	}
	return network.CheckpointBarrier{ID: id, Location: dir.Location()}
}

// deployment returns the deployment of subtask 0 of vertex v of j in
// generation gen, reporting to a fresh channel.
func deployment(j job, gen, v int) (taskmanager.Deployment, reports) {
	r := make(reports, 4)
	return taskmanager.Deployment{
		JobID: "job", Generation: gen, Graph: j.graph,
		ID:     graph.SubtaskID{Vertex: v, Subtask: 0},
		Slot:   slots.ID{TaskManager: tmID, Index: 0},
		Report: func(rep taskmanager.Report) { r <- rep },
	}, r
}

// tmID names the TaskManager under test.
const tmID = "tm-test"

// newTM returns a TaskManager with two slots whose pool holds buffers
// network buffers, closed when the test ends.
func newTM(t *testing.T, buffers int) (*taskmanager.TaskManager, *network.Registry) {
	t.Helper()
	net := network.NewRegistry()
	memory := int64(buffers) * int64(network.BufferMemory(network.DefaultBufferSize))
	tm := taskmanager.New(tmID, 2, net, network.NewBufferPool(memory, network.DefaultBufferSize), task.Config{}, nil)
	t.Cleanup(tm.Close)
	return tm, net
}
