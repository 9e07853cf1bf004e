package jobmaster_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// parallelJob is source -> sink at a parallelism: every source subtask
// emits 1..n. In the first attempt the sources then tell opened and wait,
// never ending (unless endFirst); in later attempts they end.
type parallelJob struct {
	n, parallelism int
	endFirst       bool
	opened         chan struct{}
	mu             sync.Mutex
	// got holds, per attempt, the values the sinks received.
	got map[int][]int
}

func (j *parallelJob) received(attempt int) []int {
	j.mu.Lock()
	defer j.mu.Unlock()
	got := slices.Clone(j.got[attempt])
	slices.Sort(got)
	return got
}

type gatedSource struct {
	j             *parallelJob
	attempt, next int
	out           op.Output[int]
	never         chan struct{}
}

func (s *gatedSource) Open(c *op.Context) error {
	s.attempt = c.Attempt
	return nil
}
func (s *gatedSource) Finish() error              { return nil }
func (s *gatedSource) Close() error               { return nil }
func (s *gatedSource) Available() <-chan struct{} { return s.never }
func (s *gatedSource) PollNext() (op.Status, error) {
	switch {
	case s.next < s.j.n:
		s.next++
		return op.MoreAvailable, s.out.Collect(op.NoTimestamp, s.next)
	case s.attempt > 0 || (s.j.endFirst && s.next > s.j.n):
		return op.EndOfInput, nil
	case s.next == s.j.n:
		s.next++
		s.j.opened <- struct{}{}
	}
	return op.NothingAvailable, nil
}

type attemptSink struct {
	j       *parallelJob
	attempt int
}

func (s *attemptSink) Open(c *op.Context) error {
	s.attempt = c.Attempt
	return nil
}
func (s *attemptSink) ProcessWatermark(int64) error { return nil }
func (s *attemptSink) EndInput(int) error           { return nil }
func (s *attemptSink) Finish() error                { return nil }
func (s *attemptSink) Close() error                 { return nil }
func (s *attemptSink) ProcessElement(_ int64, v int) error {
	s.j.mu.Lock()
	defer s.j.mu.Unlock()
	s.j.got[s.attempt] = append(s.j.got[s.attempt], v)
	return nil
}

func (j *parallelJob) graph(t *testing.T) *graph.JobGraph {
	t.Helper()
	j.opened = make(chan struct{}, j.parallelism)
	j.got = make(map[int][]int)
	ints := typeinfo.New[int]()
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", UID: "src", OutType: ints,
		Factory: func(out any) (any, error) {
			return &gatedSource{j: j, out: out.(op.Output[int]), never: make(chan struct{})}, nil
		}}
	sink := &graph.Transformation{ID: 2, Kind: graph.KindOperator, Name: "sink", UID: "sink", OutType: ints,
		Inputs: []*graph.Transformation{src}, Factory: func(any) (any, error) { return &attemptSink{j: j}, nil }}
	sg, err := graph.Translate([]*graph.Transformation{src, sink}, graph.Config{Parallelism: j.parallelism})
	if err != nil {
		t.Fatal(err)
	}
	return graph.BuildJobGraph(sg)
}

// want is what the sinks of an attempt that ran to its end received.
func (j *parallelJob) want() []int {
	var w []int
	for range j.parallelism {
		for v := 1; v <= j.n; v++ {
			w = append(w, v)
		}
	}
	slices.Sort(w)
	return w
}

// cutTaskManager is a real TaskManager behind a connection the test can
// cut, as a crashed process or a network partition would: once cut, the
// JobMaster's calls no longer reach it and its reports no longer reach
// the JobMaster.
type cutTaskManager struct {
	*taskmanager.TaskManager
	mu  sync.Mutex
	cut bool
}

func (c *cutTaskManager) isCut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cut
}

func (c *cutTaskManager) Cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cut = true
}

// gateway is c's TaskExecutorGateway, cut with c: a deployment or cancel
// no longer reaches it, and its reports no longer reach the JobMaster.
func (c *cutTaskManager) gateway(functions *funcspec.Table, jms taskmanager.JobMasters) rpc.TaskExecutorGateway {
	return cutGateway{TaskExecutorGateway: taskmanager.NewGateway(c.TaskManager, functions, cutJobMasters{c: c, jms: jms}), c: c}
}

var errCut = errors.New("connection cut")

type cutGateway struct {
	rpc.TaskExecutorGateway
	c *cutTaskManager
}

func (g cutGateway) SubmitTask(ctx context.Context, d *rpcpb.TaskDeploymentDescriptor) *rpc.Future[*rpcpb.SubmitTaskResponse] {
	if g.c.isCut() {
		return rpc.Failed[*rpcpb.SubmitTaskResponse](errCut)
	}
	return g.TaskExecutorGateway.SubmitTask(ctx, d)
}

func (g cutGateway) CancelTask(ctx context.Context, m *rpcpb.CancelTaskRequest) *rpc.Future[*rpcpb.CancelTaskResponse] {
	if g.c.isCut() {
		return rpc.Failed[*rpcpb.CancelTaskResponse](errCut)
	}
	return g.TaskExecutorGateway.CancelTask(ctx, m)
}

type cutJobMasters struct {
	c   *cutTaskManager
	jms taskmanager.JobMasters
}

func (j cutJobMasters) JobMaster(addr string) rpc.JobMasterGateway {
	return cutJobMaster{JobMasterGateway: j.jms.JobMaster(addr), c: j.c}
}

type cutJobMaster struct {
	rpc.JobMasterGateway
	c *cutTaskManager
}

func (j cutJobMaster) UpdateTaskExecutionState(ctx context.Context, m *rpcpb.TaskExecutionState) *rpc.Future[*rpcpb.UpdateTaskExecutionStateResponse] {
	if j.c.isCut() {
		return rpc.Failed[*rpcpb.UpdateTaskExecutionStateResponse](errCut)
	}
	return j.JobMasterGateway.UpdateTaskExecutionState(ctx, m)
}

// withRPC returns opts with a transport over which tms are served (a cut
// TaskManager behind its cut gateway) and a function table.
func withRPC(t *testing.T, opts jobmaster.Options, tms ...taskManager) jobmaster.Options {
	t.Helper()
	transport, functions := rpc.NewLocal(), funcspec.NewTable(nil)
	for _, tm := range tms {
		var g rpc.TaskExecutorGateway
		switch tm := tm.(type) {
		case *cutTaskManager:
			g = tm.gateway(functions, transport)
		case *taskmanager.TaskManager:
			g = taskmanager.NewGateway(tm, functions, transport)
		default:
			t.Fatalf("no gateway for %T", tm)
		}
		stop, err := transport.ServeTaskExecutor(tm.ID(), g)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
	}
	opts.RPC, opts.Functions = transport, functions
	return opts
}

// taskManager is a real TaskManager, cut or not.
type taskManager interface {
	ID() string
	Slots() []slots.ID
	NetworkCapacity() network.Capacity
}

// offer is the data of an offer of all of tm's slots.
func offer(tm taskManager) jobmaster.TaskManager {
	return jobmaster.TaskManager{ID: tm.ID(), Slots: tm.Slots(), Network: tm.NetworkCapacity()}
}

// offers are the offers of all the slots of tms.
func offers(tms ...taskManager) []jobmaster.TaskManager {
	var out []jobmaster.TaskManager
	for _, tm := range tms {
		out = append(out, offer(tm))
	}
	return out
}

func newTaskManager(id string, n int, net *network.Registry) *taskmanager.TaskManager {
	return taskmanager.New(id, n, net, network.NewBufferPool(network.DefaultNetworkMemory, network.DefaultBufferSize), task.Config{}, nil)
}

// runJob runs jm and returns the channel its Result arrives on.
func runJob(ctx context.Context, jm *jobmaster.JobMaster) <-chan jobmaster.Result {
	done := make(chan jobmaster.Result, 1)
	go func() { done <- jm.Run(ctx) }()
	return done
}

// A lost TaskManager fails the executions it ran at once: its reports
// never come (the connection is cut), yet the job restarts, in the slots
// left, and finishes with every record of the new attempt.
func TestLostTaskManagerFailsItsExecutionsAtOnce(t *testing.T) {
	clk := clock.NewFake(epoch)
	j := &parallelJob{n: 50, parallelism: 2}
	net := network.NewRegistry()
	tm0 := newTaskManager("tm-0", 2, net)
	tm1 := &cutTaskManager{TaskManager: newTaskManager("tm-1", 1, net)}
	defer tm0.Close()
	defer tm1.Close()
	jm, err := jobmaster.New("job", j.graph(t), offers(tm0, tm1), net, withRPC(t, jobmaster.Options{
		Clock: clk, Restart: &scheduler.FixedDelay{Attempts: 1, Delay: time.Second},
	}, tm0, tm1))
	if err != nil {
		t.Fatal(err)
	}
	done := runJob(context.Background(), jm)
	// The slots are spread: one subtask on each TaskManager.
	for range j.parallelism {
		<-j.opened
	}
	tm1.Cut()
	jm.DisconnectTaskManager("tm-1", "heartbeat timed out")
	clk.BlockUntil(1) // the restart timer: every execution counts as ended
	if st := jm.Status(); !errors.Is(st.Failure, scheduler.ErrTaskManagerLost) || !strings.Contains(st.Failure.Error(), "tm-1: heartbeat timed out") {
		t.Fatalf("failure %v, want the lost TaskManager", st.Failure)
	}
	clk.Advance(time.Second)
	res := <-done
	if res.Status != scheduler.Finished || res.Restarts != 1 {
		t.Fatalf("job ended %s (%v) after %d restarts, want FINISHED after 1", res.Status, res.Err, res.Restarts)
	}
	if got, want := j.received(1), j.want(); !slices.Equal(got, want) {
		t.Errorf("the restarted attempt received %d records, want %d: %v", len(got), len(want), got)
	}
	if n := tm0.NetworkBuffersInUse(); n != 0 {
		t.Errorf("tm-0 holds %d network buffers after the job", n)
	}
}

// Without a restart strategy the lost TaskManager fails the job at once
// and says which TaskManager and why.
func TestLostTaskManagerWithoutRestartFailsTheJob(t *testing.T) {
	j := &parallelJob{n: 5, parallelism: 2}
	net := network.NewRegistry()
	tm0 := &cutTaskManager{TaskManager: newTaskManager("tm-0", 2, net)}
	defer tm0.Close()
	jm, err := jobmaster.New("job", j.graph(t), offers(tm0), net, withRPC(t, jobmaster.Options{Clock: clock.NewFake(epoch)}, tm0))
	if err != nil {
		t.Fatal(err)
	}
	done := runJob(context.Background(), jm)
	for range j.parallelism {
		<-j.opened
	}
	tm0.Cut()
	jm.DisconnectTaskManager("tm-0", "removed")
	res := <-done
	if res.Status != scheduler.Failed || !errors.Is(res.Err, scheduler.ErrTaskManagerLost) || res.Err.Error() != "scheduler: TaskManager lost: tm-0: removed" {
		t.Fatalf("job ended %s (%v), want FAILED for the lost tm-0", res.Status, res.Err)
	}
}

// A job without enough slots waits for them when it may (SlotWait); a
// TaskManager that registers late lets it start, on the virtual clock
// without advancing it.
func TestTaskManagerRegisteredLateStartsAWaitingJob(t *testing.T) {
	clk := clock.NewFake(epoch)
	j := &parallelJob{n: 20, parallelism: 2, endFirst: true}
	net := network.NewRegistry()
	tm0, tm1 := newTaskManager("tm-0", 1, net), newTaskManager("tm-1", 1, net)
	defer tm0.Close()
	defer tm1.Close()
	opts := withRPC(t, jobmaster.Options{Clock: clk, SlotWait: time.Minute}, tm0, tm1)
	jm, err := jobmaster.New("job", j.graph(t), offers(tm0), net, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := runJob(context.Background(), jm)
	clk.BlockUntil(1) // the wait for slots
	if st := jm.Status(); st.State != scheduler.Created {
		t.Fatalf("state %s while the job waits for slots, want CREATED", st.State)
	}
	offerThrough(t, opts, jm, offer(tm1))
	for range j.parallelism {
		<-j.opened
	}
	if n := clk.Waiting(); n != 0 {
		t.Errorf("%d timers pending once the job runs, want none: the wait ended", n)
	}
	res := <-done
	if res.Status != scheduler.Finished || res.Err != nil {
		t.Fatalf("job ended %s (%v), want FINISHED", res.Status, res.Err)
	}
	if got, want := j.received(0), j.want(); !slices.Equal(got, want) {
		t.Errorf("received %v, want %v", got, want)
	}
}

// The wait for slots is bounded: the job fails when no TaskManager
// registers in time, saying how many slots it needs and has.
func TestSlotWaitTimesOut(t *testing.T) {
	clk := clock.NewFake(epoch)
	j := &parallelJob{n: 1, parallelism: 3}
	net := network.NewRegistry()
	tm0 := newTaskManager("tm-0", 2, net)
	defer tm0.Close()
	jm, err := jobmaster.New("job", j.graph(t), offers(tm0), net, withRPC(t, jobmaster.Options{Clock: clk, SlotWait: time.Minute}, tm0))
	if err != nil {
		t.Fatal(err)
	}
	done := runJob(context.Background(), jm)
	clk.BlockUntil(1)
	clk.Advance(time.Minute - time.Millisecond)
	select {
	case res := <-done:
		t.Fatalf("job ended %s before its wait for slots was over", res.Status)
	default:
	}
	clk.Advance(time.Millisecond)
	res := <-done
	want := fmt.Sprintf("%v: the job needs 3 slots, 2 are free", slots.ErrNotEnoughSlots)
	if res.Status != scheduler.Failed || res.Err == nil || res.Err.Error() != want {
		t.Fatalf("job ended %s (%v), want FAILED with %q", res.Status, res.Err, want)
	}
}

// TaskManagers registered before Run count for the start, even when the
// job does not wait for slots (the session cluster offers them so, through
// the gateway served before Run); a TaskManager disconnected through the
// gateway is lost for the reason its message gives.
func TestTaskManagersRegisteredBeforeRunCountForTheStart(t *testing.T) {
	j := &parallelJob{n: 10, parallelism: 2}
	net := network.NewRegistry()
	tm0, tm1 := newTaskManager("tm-0", 1, net), newTaskManager("tm-1", 1, net)
	defer tm0.Close()
	defer tm1.Close()
	opts := withRPC(t, jobmaster.Options{Clock: clock.NewFake(epoch)}, tm0, tm1)
	jm, err := jobmaster.New("job", j.graph(t), nil, net, opts)
	if err != nil {
		t.Fatal(err)
	}
	offerThrough(t, opts, jm, offer(tm0))
	offerThrough(t, opts, jm, offer(tm1))
	done := runJob(context.Background(), jm)
	for range j.parallelism {
		<-j.opened
	}
	m := &rpcpb.DisconnectTaskManager{TaskManagerId: "tm-1", Cause: rpc.EncodeError(errors.New("removed by the test"))}
	if _, err := opts.RPC.(*rpc.Local).JobMaster(jm.Address()).DisconnectTaskManager(context.Background(), m).Wait(context.Background()); err != nil {
		t.Fatalf("disconnect tm-1: %v", err)
	}
	res := <-done
	if res.Status != scheduler.Failed || !errors.Is(res.Err, scheduler.ErrTaskManagerLost) || !strings.Contains(res.Err.Error(), "removed by the test") {
		t.Fatalf("job ended %s (%v), want FAILED for the lost tm-1, removed by the test", res.Status, res.Err)
	}
}

// offerThrough offers jm tm's slots through its gateway (served from now
// on), as the ResourceManager does, and waits for the answer: every slot
// offered is accepted.
func offerThrough(t *testing.T, opts jobmaster.Options, jm *jobmaster.JobMaster, tm jobmaster.TaskManager) {
	t.Helper()
	if _, err := jm.Serve(); err != nil {
		t.Fatal(err)
	}
	m := jobmaster.SlotOffer("job", tm)
	r, err := opts.RPC.(*rpc.Local).JobMaster(jm.Address()).OfferSlots(context.Background(), m).Wait(context.Background())
	if err != nil {
		t.Fatalf("offer the slots of %s: %v", tm.ID, err)
	}
	if got, want := len(r.GetAccepted()), len(tm.Slots); got != want {
		t.Fatalf("%d of the %d slots of %s accepted, want all", got, want, tm.ID)
	}
}

// The JobMaster's gateway refuses an offer or a disconnect it cannot
// apply, with an error, and the job keeps only the slots it was really
// offered: here too few to start.
func TestGatewayRefusesBadOffers(t *testing.T) {
	j := &parallelJob{n: 1, parallelism: 2}
	net := network.NewRegistry()
	tm0 := newTaskManager("tm-0", 1, net)
	defer tm0.Close()
	opts := withRPC(t, jobmaster.Options{Clock: clock.NewFake(epoch)}, tm0)
	jm, err := jobmaster.New("job", j.graph(t), nil, net, opts)
	if err != nil {
		t.Fatal(err)
	}
	stop, err := jm.Serve()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	gw := opts.RPC.(*rpc.Local).JobMaster(jm.Address())
	foreign := jobmaster.SlotOffer("job", offer(tm0))
	foreign.Offers = append(foreign.Offers, &rpcpb.SlotOffer{Slot: rpc.SlotID(slots.ID{TaskManager: "tm-9", Index: 0})})
	for _, tc := range []struct {
		name string
		m    *rpcpb.OfferSlotsRequest
		want string
	}{
		{"another job", jobmaster.SlotOffer("other", offer(tm0)), `an offer for job "other"`},
		{"no slots", jobmaster.SlotOffer("job", jobmaster.TaskManager{ID: "tm-0"}), `an offer of 0 slots of TaskManager "tm-0"`},
		{"a slot of another TaskManager", foreign, "TaskManager tm-0 offered slot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gw.OfferSlots(context.Background(), tc.m).Wait(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("offer answered %v, want an error saying %q", err, tc.want)
			}
		})
	}
	if _, err := gw.DisconnectTaskManager(context.Background(), &rpcpb.DisconnectTaskManager{}).Wait(context.Background()); err == nil {
		t.Error("a disconnect without TaskManager was taken")
	}
	res := <-runJob(context.Background(), jm)
	want := fmt.Sprintf("%v: the job needs 2 slots, 0 are free", slots.ErrNotEnoughSlots)
	if res.Status != scheduler.Failed || res.Err == nil || res.Err.Error() != want {
		t.Fatalf("job ended %s (%v), want FAILED with %q", res.Status, res.Err, want)
	}
}

// A restart that finds too few slots waits for them too, and fails when
// none come in time.
func TestRestartWaitsForSlots(t *testing.T) {
	clk := clock.NewFake(epoch)
	j := &parallelJob{n: 5, parallelism: 2}
	net := network.NewRegistry()
	tm0, tm1 := newTaskManager("tm-0", 1, net), newTaskManager("tm-1", 1, net)
	defer tm0.Close()
	defer tm1.Close()
	jm, err := jobmaster.New("job", j.graph(t), offers(tm0, tm1), net, withRPC(t, jobmaster.Options{
		Clock: clk, SlotWait: time.Minute, Restart: &scheduler.FixedDelay{Attempts: 1, Delay: time.Second},
	}, tm0, tm1))
	if err != nil {
		t.Fatal(err)
	}
	done := runJob(context.Background(), jm)
	for range j.parallelism {
		<-j.opened
	}
	jm.DisconnectTaskManager("tm-1", "removed")
	clk.BlockUntil(1) // the restart timer
	clk.Advance(time.Second)
	clk.BlockUntil(1) // the wait for slots
	if st := jm.Status(); st.State != scheduler.Restarting {
		t.Fatalf("state %s while the restart waits for slots, want RESTARTING", st.State)
	}
	clk.Advance(time.Minute)
	res := <-done
	want := fmt.Sprintf("%v: the job needs 2 slots, 1 are free", slots.ErrNotEnoughSlots)
	if res.Status != scheduler.Failed || res.Err == nil || res.Err.Error() != want {
		t.Fatalf("job ended %s (%v), want FAILED with %q", res.Status, res.Err, want)
	}
}

// A TaskManager lost before Run takes its slots with it, even one given
// to New.
func TestTaskManagerLostBeforeRun(t *testing.T) {
	j := &parallelJob{n: 1, parallelism: 2}
	net := network.NewRegistry()
	tm0, tm1 := newTaskManager("tm-0", 1, net), newTaskManager("tm-1", 1, net)
	defer tm0.Close()
	defer tm1.Close()
	jm, err := jobmaster.New("job", j.graph(t), offers(tm0, tm1), net, withRPC(t, jobmaster.Options{Clock: clock.NewFake(epoch)}, tm0, tm1))
	if err != nil {
		t.Fatal(err)
	}
	jm.DisconnectTaskManager("tm-1", "removed")
	res := <-runJob(context.Background(), jm)
	want := fmt.Sprintf("%v: the job needs 2 slots, 1 are free", slots.ErrNotEnoughSlots)
	if res.Status != scheduler.Failed || res.Err == nil || res.Err.Error() != want {
		t.Fatalf("job ended %s (%v), want FAILED with %q", res.Status, res.Err, want)
	}
}
