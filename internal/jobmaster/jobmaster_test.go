package jobmaster_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
	"github.com/weir-engine/weir/internal/typeinfo"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// job is a one-vertex job: a source emitting 1..n chained to a sink that
// collects. The source's first instance fails at once when failFirst.
type job struct {
	n         int
	failFirst bool
	// sources counts the source instances created (one per deployment).
	sources atomic.Int32
	mu      sync.Mutex
	got     []int
}

func (j *job) collected() []int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.got)
}

type countSource struct {
	j    *job
	fail bool
	next int
	out  op.Output[int]
}

func (s *countSource) Open(*op.Context) error     { return nil }
func (s *countSource) Finish() error              { return nil }
func (s *countSource) Close() error               { return nil }
func (s *countSource) Available() <-chan struct{} { return nil }
func (s *countSource) PollNext() (op.Status, error) {
	if s.fail {
		return op.EndOfInput, errors.New("injected source failure")
	}
	if s.next == s.j.n {
		return op.EndOfInput, nil
	}
	s.next++
	return op.MoreAvailable, s.out.Collect(op.NoTimestamp, s.next)
}

type collectSink struct{ j *job }

func (s *collectSink) Open(*op.Context) error       { return nil }
func (s *collectSink) ProcessWatermark(int64) error { return nil }
func (s *collectSink) EndInput(int) error           { return nil }
func (s *collectSink) Finish() error                { return nil }
func (s *collectSink) Close() error                 { return nil }
func (s *collectSink) ProcessElement(_ int64, v int) error {
	s.j.mu.Lock()
	defer s.j.mu.Unlock()
	s.j.got = append(s.j.got, v)
	return nil
}

func (j *job) graph(t *testing.T) *graph.JobGraph {
	t.Helper()
	ints := typeinfo.New[int]()
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", UID: "src", Bounded: true, OutType: ints,
		Factory: func(out any) (any, error) {
			first := j.sources.Add(1) == 1
			return &countSource{j: j, fail: first && j.failFirst, out: out.(op.Output[int])}, nil
		}}
	sink := &graph.Transformation{ID: 2, Kind: graph.KindOperator, Name: "sink", UID: "sink", OutType: ints,
		Inputs: []*graph.Transformation{src}, Factory: func(any) (any, error) { return &collectSink{j: j}, nil }}
	sg, err := graph.Translate([]*graph.Transformation{src, sink}, graph.Config{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	return graph.BuildJobGraph(sg)
}

// start runs the job on one real TaskManager of one slot and returns the
// channel its Result arrives on.
func start(t *testing.T, ctx context.Context, jg *graph.JobGraph, opts jobmaster.Options) <-chan jobmaster.Result {
	t.Helper()
	net := network.NewRegistry()
	tm := taskmanager.New("tm-0", 1, net, network.NewBufferPool(network.DefaultNetworkMemory, network.DefaultBufferSize), task.Config{}, nil)
	_, done := runOn(t, ctx, jg, net, tm, opts)
	return done
}

// runOn runs the job on tm, reached over an encoding rpc.Local, and
// returns its JobMaster and the channel its Result arrives on; tm is
// closed when the job ends.
func runOn(t *testing.T, ctx context.Context, jg *graph.JobGraph, net *network.Registry, tm *taskmanager.TaskManager, opts jobmaster.Options) (*jobmaster.JobMaster, <-chan jobmaster.Result) {
	t.Helper()
	transport, functions := rpc.NewLocal(), funcspec.NewTable(nil)
	stop, err := transport.ServeTaskExecutor(tm.ID(), taskmanager.NewGateway(tm, functions, transport))
	if err != nil {
		t.Fatal(err)
	}
	opts.RPC, opts.Functions = transport, functions
	jm, err := jobmaster.New("job", jg, offers(tm), net, opts)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	done := make(chan jobmaster.Result, 1)
	go func() {
		res := jm.Run(ctx)
		stop()
		tm.Close()
		done <- res
	}()
	return jm, done
}

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// TestRestartWaitsForTheClock: after a failure the JobMaster restarts the
// job only once its clock has passed the restart delay, and measures the
// job's duration on that clock.
func TestRestartWaitsForTheClock(t *testing.T) {
	const delay = 10 * time.Second
	clk := clock.NewFake(epoch)
	j := &job{n: 5, failFirst: true}
	done := start(t, context.Background(), j.graph(t), jobmaster.Options{
		Restart: &scheduler.FixedDelay{Attempts: 1, Delay: delay}, Clock: clk,
	})
	clk.BlockUntil(1) // the restart timer
	clk.Advance(delay - time.Millisecond)
	if n := clk.Waiting(); n != 1 {
		t.Fatalf("%d timers wait %v before the restart is due, want the restart's", n, time.Millisecond)
	}
	select {
	case res := <-done:
		t.Fatalf("the job ended %s before its restart delay passed", res.Status)
	default:
	}
	if got := j.sources.Load(); got != 1 {
		t.Fatalf("%d source instances before the restart, want 1", got)
	}
	clk.Advance(time.Millisecond)
	res := <-done
	if res.Status != scheduler.Finished || res.Err != nil {
		t.Fatalf("job ended %s (%v), want FINISHED", res.Status, res.Err)
	}
	if res.Restarts != 1 {
		t.Errorf("restarts = %d, want 1", res.Restarts)
	}
	if res.Duration != delay {
		t.Errorf("duration = %v on the fake clock, want the restart delay %v", res.Duration, delay)
	}
	if got, want := j.collected(), []int{1, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("sink got %v, want %v", got, want)
	}
}

// gatedFS is the operating system's file system, except that any call on
// a name containing gate blocks until release is closed, after closing
// reached, and then fails as a storage call whose context was cancelled.
type gatedFS struct {
	storage.FS
	gate    string
	release chan struct{}
	reached chan struct{}
	once    sync.Once
}

func (g *gatedFS) wait(name string) error {
	if !strings.Contains(name, g.gate) {
		return nil
	}
	g.once.Do(func() { close(g.reached) })
	<-g.release
	return fmt.Errorf("gated %s: %w", name, context.Canceled)
}

func (g *gatedFS) Open(name string) (storage.File, error) {
	if err := g.wait(name); err != nil {
		return nil, err
	}
	return g.FS.Open(name)
}

func (g *gatedFS) Stat(name string) (int64, bool, error) {
	if err := g.wait(name); err != nil {
		return 0, false, err
	}
	return g.FS.Stat(name)
}

// TestCancelDuringRestore: a cancel while the JobMaster reads the
// savepoint it restores from (off its loop, stuck in storage here) ends
// the job CANCELED at once, without deploying anything.
func TestCancelDuringRestore(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fs := &gatedFS{FS: storage.OSFS(), gate: "gated-savepoint", release: make(chan struct{}), reached: make(chan struct{})}
	st, err := storage.Open(ctx, dir, storage.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	j := &job{n: 5}
	done := start(t, ctx, j.graph(t), jobmaster.Options{
		Clock:       clock.NewFake(epoch),
		Checkpoints: &jobmaster.CheckpointOptions{Options: checkpoint.Options{Enabled: true, Interval: time.Minute}, Storage: st},
		RestoreFrom: filepath.Join(dir, "gated-savepoint"),
		Restart:     &scheduler.FixedDelay{Attempts: 3},
	})
	<-fs.reached
	// The storage call fails once the cancel has reached every context
	// derived from the job's, as a storage that honours the context it
	// was given does.
	cancel()
	close(fs.release)
	res := <-done
	if res.Status != scheduler.Canceled || res.Err != nil {
		t.Fatalf("job ended %s (%v), want CANCELED", res.Status, res.Err)
	}
	if got := j.sources.Load(); got != 0 {
		t.Errorf("%d source instances created, want none: nothing is deployed before the restore", got)
	}
}

// TestRestoreFailure: a savepoint that cannot be read fails the job
// without a restart, and says which savepoint.
func TestRestoreFailure(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-savepoint")
	j := &job{n: 5}
	res := <-start(t, context.Background(), j.graph(t), jobmaster.Options{
		Clock: clock.NewFake(epoch), RestoreFrom: missing, Restart: &scheduler.FixedDelay{Attempts: 3},
	})
	if res.Status != scheduler.Failed {
		t.Fatalf("job ended %s, want FAILED", res.Status)
	}
	if !errors.Is(res.Err, scheduler.ErrUnrecoverable) || !strings.Contains(res.Err.Error(), "read savepoint "+missing) {
		t.Errorf("err = %v, want an unrecoverable error naming the savepoint", res.Err)
	}
	if res.Restarts != 0 || j.sources.Load() != 0 {
		t.Errorf("restarts = %d, sources = %d, want none", res.Restarts, j.sources.Load())
	}
}
