package task_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// bigSource emits one record larger than a network buffer per poll, so
// that every poll sends exactly one buffer; it counts its polls.
type bigSource struct {
	out   op.Output[string]
	polls *atomic.Int64
	// polled receives a token per poll.
	polled chan struct{}
}

func (s *bigSource) Open(*op.Context) error     { return nil }
func (s *bigSource) Finish() error              { return nil }
func (s *bigSource) Close() error               { return nil }
func (s *bigSource) Available() <-chan struct{} { return nil }
func (s *bigSource) PollNext() (op.Status, error) {
	n := s.polls.Add(1)
	select {
	case s.polled <- struct{}{}:
	default:
	}
	return op.MoreAvailable, s.out.Collect(op.NoTimestamp, record(n))
}

func record(n int64) string {
	return strings.Repeat(string(rune('a'+n%26)), network.DefaultBufferSize+1)
}

// gatedSink announces each record on got, then processes it only once the
// test hands it a token (or stop is closed).
type gatedSink struct {
	tokens, stop <-chan struct{}
	got          chan<- string
}

func (s *gatedSink) Open(*op.Context) error { return nil }
func (s *gatedSink) Finish() error          { return nil }
func (s *gatedSink) Close() error           { return nil }
func (s *gatedSink) ProcessElement(_ int64, v string) error {
	select {
	case s.got <- v:
	case <-s.stop:
		return nil
	}
	select {
	case <-s.tokens:
	case <-s.stop:
	}
	return nil
}

// acks is a Responder that hands acknowledgements to the test.
type acks chan *task.Snapshot

func (a acks) Acknowledge(s *task.Snapshot) { a <- s }
func (a acks) Decline(int64, error)         {}
func (a acks) EndOfData()                   {}

// notRun is the factory of an operator whose task the test does not run.
func notRun(any) (any, error) { return nil, errors.New("this task is not run by the test") }

// pipeline builds src -> sink as two vertices of parallelism 1.
func pipeline(t *testing.T, src, sink graph.Factory) *graph.JobGraph {
	return fanIn(t, 1, src, sink)
}

// fanIn builds src (of parallelism p) -> sink (of parallelism 1): the sink's
// channel i reads source subtask i.
func fanIn(t *testing.T, p int, src, sink graph.Factory) *graph.JobGraph {
	t.Helper()
	strs := typeinfo.New[string]()
	s := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", OutType: strs, Factory: src, Parallelism: p}
	k := &graph.Transformation{ID: 2, Kind: graph.KindOperator, Name: "sink", OutType: strs, Inputs: []*graph.Transformation{s},
		Chaining: graph.ChainHead, Factory: sink}
	k.Parallelism = 1
	sg, err := graph.Translate([]*graph.Transformation{s, k}, graph.Config{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	jg := graph.BuildJobGraph(sg)
	if len(jg.Vertices) != 2 {
		t.Fatalf("want two vertices, got %d", len(jg.Vertices))
	}
	return jg
}

// start runs a task until the test ends.
func start(t *testing.T, d task.Descriptor) *task.Task {
	t.Helper()
	tk := task.New(d, task.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tk.Run(ctx, nil) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return tk
}

func frame(t *testing.T, vs ...string) []byte {
	t.Helper()
	c, err := codec.For[string]()
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	for _, v := range vs {
		b = c.Append(append(b, network.TagRecord), v)
	}
	return b
}

func decode(t *testing.T, buf []byte) []string {
	t.Helper()
	c, err := codec.For[string]()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for len(buf) > 0 {
		if buf[0] != network.TagRecord {
			t.Fatalf("element tag 0x%02x, want a record", buf[0])
		}
		v, n, err := c.Decode(buf[1:])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
		buf = buf[1+n:]
	}
	return out
}

// A source whose output has no credit stops polling and still answers a
// checkpoint trigger at once. Unaligned, its barrier overtakes the buffers
// waiting in its subpartition, which become the output side of the
// checkpoint's channel state; aligned, the barrier waits behind them.
func TestBackPressuredSourceAnswersTrigger(t *testing.T) {
	for _, unaligned := range []bool{false, true} {
		t.Run(map[bool]string{false: "aligned", true: "unaligned"}[unaligned], func(t *testing.T) {
			var polls atomic.Int64
			polled := make(chan struct{}, 16)
			jg := pipeline(t, func(out any) (any, error) {
				return &bigSource{out: out.(op.Output[string]), polls: &polls, polled: polled}, nil
			}, notRun)
			net := network.NewRegistry()
			responses := make(acks, 1)
			tk := start(t, task.Descriptor{JobID: "j", Graph: jg, Vertex: jg.Vertices[0], Network: net,
				Checkpointing: true, Checkpoints: responses})
			// No consumer is connected: no credit, and a backlog of
			// DefaultBacklog buffers, after which the source is
			// back-pressured and is polled no more.
			for range network.DefaultBacklog {
				<-polled
			}
			if !tk.TriggerCheckpoint(network.CheckpointBarrier{ID: 1, Unaligned: unaligned}) {
				t.Fatal("task not running")
			}
			snap := <-responses
			if n := polls.Load(); n != network.DefaultBacklog {
				t.Fatalf("source polled %d times, want %d: it was polled without output", n, network.DefaultBacklog)
			}
			var wantState int
			if unaligned {
				wantState = network.DefaultBacklog
			}
			if got := len(snap.ChannelState[0]); got != wantState {
				t.Fatalf("output channel state holds %d buffers, want %d", got, wantState)
			}
			for i, b := range snap.ChannelState[0] {
				if got := decode(t, b); len(got) != 1 || got[0] != record(int64(i+1)) {
					t.Fatalf("channel state buffer %d is not record %d", i, i+1)
				}
			}

			// The consumer connects: the barrier comes first when
			// unaligned, after the queued data when aligned.
			g := network.NewGate(1, network.DefaultCredit)
			id := network.PartitionID{Job: "j", Vertex: jg.Vertices[0].ID}
			if err := net.RequestSubpartition(id, 0, g.Channel(0)); err != nil {
				t.Fatal(err)
			}
			var order []string
			for range network.DefaultBacklog + 1 {
				it, ch, ok := g.Poll()
				if !ok {
					t.Fatalf("gate empty after %v", order)
				}
				if it.Event != nil {
					order = append(order, "barrier")
					continue
				}
				order = append(order, "data")
				g.Recycle(ch, it.Buf)
			}
			want := "data data barrier"
			if unaligned {
				want = "barrier data data"
			}
			if got := strings.Join(order, " "); got != want {
				t.Fatalf("consumer got %s, want %s", got, want)
			}
		})
	}
}

// An unaligned barrier overtakes the buffers queued in the consumer's input
// channel and interrupts the buffer being processed between two records:
// the rest of that buffer and the overtaken buffers are the channel state,
// and are processed after the snapshot.
func TestUnalignedBarrierOvertakesInput(t *testing.T) {
	tokens, stop := make(chan struct{}), make(chan struct{})
	got := make(chan string)
	jg := pipeline(t, notRun, func(any) (any, error) { return &gatedSink{tokens: tokens, stop: stop, got: got}, nil })
	net := network.NewRegistry()
	producer, err := network.NewResultPartition(network.PartitionID{Job: "j", Vertex: jg.Vertices[0].ID},
		network.PartitionOptions{Subpartitions: 1, Backlog: network.DefaultBacklog})
	if err != nil {
		t.Fatal(err)
	}
	if err := net.RegisterPartition(producer); err != nil {
		t.Fatal(err)
	}
	responses := make(acks, 1)
	start(t, task.Descriptor{JobID: "j", Graph: jg, Vertex: jg.Vertices[1], Network: net,
		Checkpointing: true, Checkpoints: responses})
	t.Cleanup(func() { close(stop) }) // runs before start's cleanup
	sub := producer.Subpartition(0)
	for _, b := range [][]byte{frame(t, "r1", "r2", "r3"), frame(t, "r4")} {
		if _, err := sub.Add(network.Item{Buf: b}); err != nil {
			t.Fatal(err)
		}
	}
	// The sink is inside r1: the first buffer is in progress, the second
	// went to the input channel with the consumer's credit.
	if v := <-got; v != "r1" {
		t.Fatalf("first record %q, want r1", v)
	}
	overtaken, err := sub.Add(network.Item{Event: network.CheckpointBarrier{ID: 1, Unaligned: true}})
	if err != nil || len(overtaken) != 0 {
		t.Fatalf("barrier overtook %d buffers in the subpartition (err %v), want none", len(overtaken), err)
	}
	tokens <- struct{}{} // r1 done: the task stops before r2 for the barrier
	snap := <-responses
	var state []string
	for _, b := range snap.ChannelState[0] {
		state = append(state, decode(t, b)...)
	}
	if strings.Join(state, " ") != "r2 r3 r4" {
		t.Fatalf("channel state %v, want the rest of the first buffer and the overtaken one: [r2 r3 r4]", state)
	}
	// They are still processed, after the snapshot.
	for _, want := range []string{"r2", "r3", "r4"} {
		if v := <-got; v != want {
			t.Fatalf("record %q, want %q", v, want)
		}
		tokens <- struct{}{}
	}
}

// A buffer in progress on a channel whose barrier has not arrived at the
// snapshot is channel state from where the task stopped in it; when that
// channel's barrier arrives while the buffer is still in progress, the
// buffer is not persisted a second time.
func TestInProgressBufferPersistedOnce(t *testing.T) {
	tokens, stop := make(chan struct{}), make(chan struct{})
	got := make(chan string)
	jg := fanIn(t, 2, notRun, func(any) (any, error) { return &gatedSink{tokens: tokens, stop: stop, got: got}, nil })
	net := network.NewRegistry()
	var subs []*network.Subpartition
	for p := range 2 {
		part, err := network.NewResultPartition(network.PartitionID{Job: "j", Vertex: jg.Vertices[0].ID, Subtask: p},
			network.PartitionOptions{Subpartitions: 1, Backlog: network.DefaultBacklog})
		if err != nil {
			t.Fatal(err)
		}
		if err := net.RegisterPartition(part); err != nil {
			t.Fatal(err)
		}
		subs = append(subs, part.Subpartition(0))
	}
	responses := make(acks, 1)
	start(t, task.Descriptor{JobID: "j", Graph: jg, Vertex: jg.Vertices[1], Network: net,
		Checkpointing: true, Checkpoints: responses})
	t.Cleanup(func() { close(stop) })
	add := func(s *network.Subpartition, it network.Item) {
		t.Helper()
		if _, err := s.Add(it); err != nil {
			t.Fatal(err)
		}
	}
	barrier := network.Item{Event: network.CheckpointBarrier{ID: 1, Unaligned: true}}
	add(subs[1], network.Item{Buf: frame(t, "r1", "r2", "r3")})
	if v := <-got; v != "r1" {
		t.Fatalf("first record %q, want r1", v)
	}
	add(subs[0], barrier) // snapshot at once; channel 1 is persisted from r2
	tokens <- struct{}{}
	if v := <-got; v != "r2" {
		t.Fatalf("record %q, want r2", v)
	}
	add(subs[1], barrier) // arrives while the buffer is still in progress
	tokens <- struct{}{}
	snap := <-responses
	var state []string
	for _, b := range snap.ChannelState[1] {
		state = append(state, decode(t, b)...)
	}
	if strings.Join(state, " ") != "r2 r3" || len(snap.ChannelState[0]) != 0 {
		t.Fatalf("channel state %v / %d buffers on channel 0, want [r2 r3] / none", state, len(snap.ChannelState[0]))
	}
	if v := <-got; v != "r3" {
		t.Fatalf("record %q, want r3", v)
	}
	tokens <- struct{}{}
}

// The output side of a restored channel state goes to the subpartitions
// before anything the task writes.
func TestOutputChannelStateIsRestoredFirst(t *testing.T) {
	var polls atomic.Int64
	jg := pipeline(t, func(out any) (any, error) {
		return &bigSource{out: out.(op.Output[string]), polls: &polls, polled: make(chan struct{})}, nil
	}, notRun)
	net := network.NewRegistry()
	start(t, task.Descriptor{JobID: "j", Graph: jg, Vertex: jg.Vertices[0], Network: net,
		ChannelState: map[int][][]byte{0: {frame(t, "old1"), frame(t, "old2")}}})
	g := network.NewGate(1, network.DefaultCredit)
	if err := net.RequestSubpartition(network.PartitionID{Job: "j", Vertex: jg.Vertices[0].ID}, 0, g.Channel(0)); err != nil {
		t.Fatal(err)
	}
	var recs []string
	for len(recs) < 3 {
		it, ch, ok := g.Poll()
		if !ok {
			<-g.Available()
			continue
		}
		recs = append(recs, decode(t, it.Buf)...)
		g.Recycle(ch, it.Buf)
	}
	if recs[0] != "old1" || recs[1] != "old2" || recs[2] != record(1) {
		t.Fatalf("consumer got %.10q, want old1, old2, then the first new record", recs)
	}
}
