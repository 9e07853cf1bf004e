package task_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/typeinfo"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// journal records lifecycle calls of the operators of one task; the task's
// single goroutine writes it.
type journal struct{ calls []string }

func (j *journal) add(format string, args ...any) {
	j.calls = append(j.calls, fmt.Sprintf(format, args...))
}

// countSource emits 1..n, then ends.
type countSource struct {
	n, next int
	out     op.Output[int]
	j       *journal
}

func (s *countSource) Open(*op.Context) error { s.j.add("src.open"); return nil }
func (s *countSource) Finish() error          { s.j.add("src.finish"); return nil }
func (s *countSource) Close() error           { s.j.add("src.close"); return nil }
func (s *countSource) Available() <-chan struct{} {
	return nil
}

func (s *countSource) PollNext() (op.Status, error) {
	if s.next == s.n {
		return op.EndOfInput, nil
	}
	s.next++
	return op.MoreAvailable, s.out.Collect(op.NoTimestamp, s.next)
}

// recorder passes ints through and records every lifecycle call; it fails
// on element failOn (0: never) and can emit from Finish.
type recorder struct {
	name   string
	out    op.Output[int]
	j      *journal
	failOn int
}

func (r *recorder) Open(*op.Context) error { r.j.add("%s.open", r.name); return nil }
func (r *recorder) ProcessElement(_ int64, v int) error {
	r.j.add("%s.element(%d)", r.name, v)
	if v == r.failOn {
		return fmt.Errorf("boom at %d", v)
	}
	return r.out.Collect(op.NoTimestamp, v)
}
func (r *recorder) ProcessWatermark(wm int64) error {
	if wm == op.MaxWatermark {
		r.j.add("%s.watermark(max)", r.name)
	}
	return r.out.EmitWatermark(wm)
}
func (r *recorder) EndInput(i int) error { r.j.add("%s.endInput(%d)", r.name, i); return nil }
func (r *recorder) Finish() error {
	r.j.add("%s.finish", r.name)
	// Finish may still emit.
	return r.out.Collect(op.NoTimestamp, 100)
}
func (r *recorder) Close() error { r.j.add("%s.close", r.name); return nil }
func (r *recorder) NotifyCheckpointComplete(id int64) error {
	r.j.add("%s.notifyComplete(%d)", r.name, id)
	return nil
}
func (r *recorder) NotifyCheckpointAborted(id int64) error {
	r.j.add("%s.notifyAborted(%d)", r.name, id)
	return nil
}

// chainGraph builds source -> a -> b as one chained vertex.
func chainGraph(t *testing.T, j *journal, n, failA, failB int) *graph.JobGraph {
	t.Helper()
	ints := typeinfo.New[int]()
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", OutType: ints, Factory: func(out any) (any, error) {
		return &countSource{n: n, out: out.(op.Output[int]), j: j}, nil
	}}
	rec := func(id int, name string, in *graph.Transformation, failOn int) *graph.Transformation {
		return &graph.Transformation{ID: id, Kind: graph.KindOperator, Name: name, OutType: ints, Inputs: []*graph.Transformation{in},
			Factory: func(out any) (any, error) {
				return &recorder{name: name, out: out.(op.Output[int]), j: j, failOn: failOn}, nil
			}}
	}
	a := rec(2, "a", src, failA)
	b := rec(3, "b", a, failB)
	sg, err := graph.Translate([]*graph.Transformation{src, a, b}, graph.Config{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	jg := graph.BuildJobGraph(sg)
	if len(jg.Vertices) != 1 {
		t.Fatalf("want one chained vertex, got %d", len(jg.Vertices))
	}
	return jg
}

func runChain(t *testing.T, jg *graph.JobGraph, ctx context.Context) error {
	t.Helper()
	tk := task.New(task.Descriptor{JobID: "j", Graph: jg, Vertex: jg.Vertices[0], Network: network.NewRegistry()}, task.Config{})
	return tk.Run(ctx, nil)
}

func TestLifecycleOrder(t *testing.T) {
	j := &journal{}
	if err := runChain(t, chainGraph(t, j, 2, 0, 0), context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		// Open runs tail first, so a downstream operator is ready first.
		"b.open", "a.open", "src.open",
		"a.element(1)", "b.element(1)", "a.element(2)", "b.element(2)",
		// The bounded source ends event time.
		"a.watermark(max)", "b.watermark(max)",
		// Head to tail: each operator's input ends, then it finishes; what
		// a finishing operator emits still reaches the next one.
		"src.finish",
		"a.endInput(0)", "a.finish", "b.element(100)",
		"b.endInput(0)", "b.finish",
		"src.close", "a.close", "b.close",
	}
	if !slices.Equal(j.calls, want) {
		t.Fatalf("lifecycle:\n got %s\nwant %s", strings.Join(j.calls, " "), strings.Join(want, " "))
	}
}

func TestLifecycleOnFailure(t *testing.T) {
	j := &journal{}
	err := runChain(t, chainGraph(t, j, 5, 0, 2), context.Background())
	var oe *op.Error
	if !errors.As(err, &oe) || oe.Operator != "b" || !strings.Contains(err.Error(), "boom at 2") {
		t.Fatalf("err = %v, want operator b's error", err)
	}
	for _, c := range j.calls {
		if strings.HasSuffix(c, ".finish") || strings.Contains(c, "endInput") {
			t.Errorf("%s called after a failure", c)
		}
	}
	closes := slices.DeleteFunc(slices.Clone(j.calls), func(c string) bool { return !strings.HasSuffix(c, ".close") })
	if want := []string{"src.close", "a.close", "b.close"}; !slices.Equal(closes, want) {
		t.Fatalf("closes = %v, want %v (every operator closed after a failure)", closes, want)
	}
}

func TestLifecycleOnCancel(t *testing.T) {
	j := &journal{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := runChain(t, chainGraph(t, j, 1_000_000, 0, 0), ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if slices.Contains(j.calls, "a.finish") {
		t.Fatal("finish called on cancel")
	}
	if !slices.Contains(j.calls, "a.close") || !slices.Contains(j.calls, "b.close") {
		t.Fatalf("operators not closed on cancel: %v", j.calls)
	}
}
