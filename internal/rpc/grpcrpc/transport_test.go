package grpcrpc_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/grpcrpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"google.golang.org/protobuf/proto"
)

// cluster is a server on a loopback port that serves one gateway of each
// kind, all answered by one recorder, and a client of them.
type cluster struct {
	srv    *grpcrpc.Server
	client *grpcrpc.Client
	rec    *recorder
	jm     rpc.JobMasterGateway
	te     rpc.TaskExecutorGateway
	rm     rpc.ResourceManagerGateway
}

func newCluster(t *testing.T) *cluster { return newBenchCluster(t) }

// newBenchCluster is newCluster for a test or a benchmark.
func newBenchCluster(t testing.TB) *cluster {
	t.Helper()
	srv, err := grpcrpc.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	rec := newRecorder()
	for _, serve := range []func() (func(), error){
		func() (func(), error) { return srv.ServeJobMaster("job-1", jobMaster{rec}) },
		func() (func(), error) { return srv.ServeTaskExecutor("tm-1", taskExecutor{rec}) },
		func() (func(), error) { return srv.ServeResourceManager("", resourceManager{rec}) },
	} {
		stop, err := serve()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
	}
	client := grpcrpc.NewClient()
	t.Cleanup(func() { _ = client.Close() })
	return &cluster{
		srv: srv, client: client, rec: rec,
		jm: client.JobMaster(grpcrpc.Address(srv.Addr(), "job-1")),
		te: client.TaskExecutor(grpcrpc.Address(srv.Addr(), "tm-1")),
		rm: client.ResourceManager(srv.Addr()),
	}
}

// wait waits for f's answer (bounded by the test's own deadline).
func wait[T proto.Message](f *rpc.Future[T]) (proto.Message, error) {
	return f.Wait(context.Background())
}

var task = &rpcpb.TaskKey{JobId: "job-1", Generation: 2, Execution: &rpcpb.ExecutionId{Vertex: 3, Subtask: 1}}

// call is one gateway method: a request, the answer the handler gives, and
// how the client makes the call.
type call struct {
	method string
	req    proto.Message
	resp   proto.Message
	invoke func(context.Context, *cluster, proto.Message) (proto.Message, error)
}

func calls() []call {
	return []call{
		{"JobMaster.UpdateTaskExecutionState", &rpcpb.TaskExecutionState{Task: task, State: rpcpb.ExecutionState_EXECUTION_STATE_FAILED, TimeUnixNanos: 7, Error: &rpcpb.Error{Message: "boom", Kinds: []rpcpb.ErrorKind{rpcpb.ErrorKind_ERROR_KIND_UNRECOVERABLE}}}, &rpcpb.UpdateTaskExecutionStateResponse{},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.jm.UpdateTaskExecutionState(ctx, m.(*rpcpb.TaskExecutionState)))
			}},
		{"JobMaster.AcknowledgeCheckpoint", &rpcpb.AcknowledgeCheckpoint{Task: task, CheckpointId: 5}, &rpcpb.Ack{},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.jm.AcknowledgeCheckpoint(ctx, m.(*rpcpb.AcknowledgeCheckpoint)))
			}},
		{"JobMaster.DeclineCheckpoint", &rpcpb.DeclineCheckpoint{Task: task, CheckpointId: 6, Reason: &rpcpb.Error{Message: "no space"}}, &rpcpb.Ack{},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.jm.DeclineCheckpoint(ctx, m.(*rpcpb.DeclineCheckpoint)))
			}},
		{"JobMaster.EndOfData", &rpcpb.EndOfData{Task: task}, &rpcpb.Ack{},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.jm.EndOfData(ctx, m.(*rpcpb.EndOfData)))
			}},
		{"JobMaster.RequestSplit", &rpcpb.SplitRequest{Task: task, OperatorUid: "src"}, &rpcpb.SplitAssignment{Task: task, OperatorUid: "src", Split: []byte{1, 2, 3}},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.jm.RequestSplit(ctx, m.(*rpcpb.SplitRequest)))
			}},
		{"JobMaster.ReportWatermark", &rpcpb.WatermarkReport{Task: task, OperatorUid: "src", Watermark: 42, Idle: true}, &rpcpb.WatermarkAlignment{MaxAllowedWatermark: 1042},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.jm.ReportWatermark(ctx, m.(*rpcpb.WatermarkReport)))
			}},
		{"JobMaster.OfferSlots", &rpcpb.OfferSlotsRequest{TaskManagerId: "tm-1", JobId: "job-1", Offers: []*rpcpb.SlotOffer{{Slot: &rpcpb.SlotId{TaskManagerId: "tm-1", Index: 1}, AllocationId: "a1"}}, Address: "127.0.0.1:1/tm-1"},
			&rpcpb.OfferSlotsResponse{Accepted: []*rpcpb.SlotOffer{{Slot: &rpcpb.SlotId{TaskManagerId: "tm-1", Index: 1}, AllocationId: "a1"}}},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.jm.OfferSlots(ctx, m.(*rpcpb.OfferSlotsRequest)))
			}},
		{"JobMaster.DisconnectTaskManager", &rpcpb.DisconnectTaskManager{TaskManagerId: "tm-1", Cause: &rpcpb.Error{Message: "gone"}}, &rpcpb.Ack{},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.jm.DisconnectTaskManager(ctx, m.(*rpcpb.DisconnectTaskManager)))
			}},
		{"TaskExecutor.SubmitTask", &rpcpb.TaskDeploymentDescriptor{Task: task, Slot: &rpcpb.SlotId{TaskManagerId: "tm-1"}, JobMasterAddress: "127.0.0.1:1/job-1"}, &rpcpb.SubmitTaskResponse{},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.te.SubmitTask(ctx, m.(*rpcpb.TaskDeploymentDescriptor)))
			}},
		{"TaskExecutor.CancelTask", &rpcpb.CancelTaskRequest{Task: task}, &rpcpb.CancelTaskResponse{},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.te.CancelTask(ctx, m.(*rpcpb.CancelTaskRequest)))
			}},
		{"TaskExecutor.TriggerCheckpoint", &rpcpb.TriggerCheckpointRequest{Task: task, Barrier: &rpcpb.CheckpointBarrier{Id: 9}}, &rpcpb.TriggerCheckpointResponse{Accepted: true},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.te.TriggerCheckpoint(ctx, m.(*rpcpb.TriggerCheckpointRequest)))
			}},
		{"TaskExecutor.NotifyCheckpointComplete", &rpcpb.NotifyCheckpointComplete{Task: task, CheckpointId: 9}, &rpcpb.Ack{},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.te.NotifyCheckpointComplete(ctx, m.(*rpcpb.NotifyCheckpointComplete)))
			}},
		{"TaskExecutor.NotifyCheckpointAborted", &rpcpb.NotifyCheckpointAborted{Task: task, CheckpointId: 10}, &rpcpb.Ack{},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.te.NotifyCheckpointAborted(ctx, m.(*rpcpb.NotifyCheckpointAborted)))
			}},
		{"TaskExecutor.RequestSlot", &rpcpb.RequestSlotRequest{Slot: &rpcpb.SlotId{TaskManagerId: "tm-1", Index: 2}, JobId: "job-1", AllocationId: "a2"}, &rpcpb.RequestSlotResponse{Accepted: true},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.te.RequestSlot(ctx, m.(*rpcpb.RequestSlotRequest)))
			}},
		{"TaskExecutor.Heartbeat", &rpcpb.Heartbeat{SenderId: "rm", Sequence: 4}, &rpcpb.Heartbeat{SenderId: "tm-1", Sequence: 4, SlotReport: &rpcpb.SlotReport{Slots: []*rpcpb.SlotStatus{{Slot: &rpcpb.SlotId{TaskManagerId: "tm-1"}, JobId: "job-1"}}}},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.te.Heartbeat(ctx, m.(*rpcpb.Heartbeat)))
			}},
		{"ResourceManager.RegisterTaskManager", &rpcpb.RegisterTaskManagerRequest{TaskManagerId: "tm-1", Address: "127.0.0.1:1/tm-1", Slots: 4}, &rpcpb.RegisterTaskManagerResponse{Accepted: true, ResourceManagerId: "rm"},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.rm.RegisterTaskManager(ctx, m.(*rpcpb.RegisterTaskManagerRequest)))
			}},
		{"ResourceManager.Heartbeat", &rpcpb.Heartbeat{SenderId: "tm-1", Sequence: 8}, &rpcpb.Heartbeat{SenderId: "rm", Sequence: 8},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.rm.Heartbeat(ctx, m.(*rpcpb.Heartbeat)))
			}},
		{"ResourceManager.DisconnectTaskManager", &rpcpb.DisconnectTaskManager{TaskManagerId: "tm-2"}, &rpcpb.Ack{},
			func(ctx context.Context, c *cluster, m proto.Message) (proto.Message, error) {
				return wait(c.rm.DisconnectTaskManager(ctx, m.(*rpcpb.DisconnectTaskManager)))
			}},
	}
}

// TestEveryMethodRoundTrips calls every gateway method over a loopback
// socket: the handler gets the request as sent, the caller the answer as
// given.
func TestEveryMethodRoundTrips(t *testing.T) {
	c := newCluster(t)
	all := calls()
	want := reflect.TypeFor[rpc.JobMasterGateway]().NumMethod() + reflect.TypeFor[rpc.TaskExecutorGateway]().NumMethod() +
		reflect.TypeFor[rpc.ResourceManagerGateway]().NumMethod()
	if len(all) != want {
		t.Fatalf("the table has %d methods, the three gateways %d", len(all), want)
	}
	for _, tc := range all {
		t.Run(tc.method, func(t *testing.T) {
			c.rec.mu.Lock()
			c.rec.answers[tc.method] = tc.resp
			c.rec.mu.Unlock()
			got, err := tc.invoke(context.Background(), c, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, tc.resp) {
				t.Errorf("answer %v, want %v", got, tc.resp)
			}
			if got == tc.resp {
				t.Error("the answer is the handler's own message: it did not cross the socket")
			}
			if req := c.rec.request(tc.method); !proto.Equal(req, tc.req) {
				t.Errorf("handler got %v, want %v", req, tc.req)
			}
		})
	}
}

type userError struct{}

func (userError) Error() string { return "user sentinel" }

// TestHandlerErrorKeepsItsKind: a handler's error reaches the caller with
// its text and the kinds it matched, so errors.Is finds them.
func TestHandlerErrorKeepsItsKind(t *testing.T) {
	tests := []struct {
		name string
		err  error
		is   []error
		not  []error
	}{
		{"not exist", fmt.Errorf("restore chk-3: %w", fs.ErrNotExist), []error{fs.ErrNotExist}, []error{scheduler.ErrUnrecoverable}},
		{"unrecoverable", fmt.Errorf("job graph: %w", scheduler.ErrUnrecoverable), []error{scheduler.ErrUnrecoverable}, []error{fs.ErrNotExist}},
		{"two kinds", errors.Join(fs.ErrPermission, scheduler.ErrConsequence), []error{fs.ErrPermission, scheduler.ErrConsequence}, []error{fs.ErrNotExist}},
		{"deadline", fmt.Errorf("flush: %w", context.DeadlineExceeded), []error{context.DeadlineExceeded}, []error{context.Canceled}},
		{"no kind", userError{}, nil, []error{fs.ErrNotExist, scheduler.ErrUnrecoverable, context.Canceled, rpc.ErrUnreachable}},
	}
	c := newCluster(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c.rec.mu.Lock()
			c.rec.err = tc.err
			c.rec.mu.Unlock()
			_, err := wait(c.jm.EndOfData(context.Background(), &rpcpb.EndOfData{Task: task}))
			if err == nil {
				t.Fatal("the call succeeded")
			}
			if err.Error() != tc.err.Error() {
				t.Errorf("error %q, want %q", err, tc.err)
			}
			for _, s := range tc.is {
				if !errors.Is(err, s) {
					t.Errorf("errors.Is(%v, %v) = false", err, s)
				}
			}
			for _, s := range tc.not {
				if errors.Is(err, s) {
					t.Errorf("errors.Is(%v, %v) = true", err, s)
				}
			}
		})
	}
}

// TestEmbeddedErrorReferencesDoNotCross: an answer that carries an error
// encoded with a process-local reference (rpc.EncodeError) reaches the
// caller with its kinds, and the reference is taken out of the handler
// process's Handoff instead of staying there for ever.
func TestEmbeddedErrorReferencesDoNotCross(t *testing.T) {
	c := newCluster(t)
	before := rpc.PendingLocal()
	c.rec.mu.Lock()
	c.rec.answers["TaskExecutor.SubmitTask"] = &rpcpb.SubmitTaskResponse{Error: rpc.EncodeError(fmt.Errorf("open: %w", fs.ErrPermission))}
	c.rec.mu.Unlock()
	got, err := wait(c.te.SubmitTask(context.Background(), &rpcpb.TaskDeploymentDescriptor{Task: task}))
	if err != nil {
		t.Fatal(err)
	}
	m := got.(*rpcpb.SubmitTaskResponse).GetError()
	if m.GetEmbeddedRef() != 0 {
		t.Errorf("the answer carries the reference %d", m.GetEmbeddedRef())
	}
	if taskErr := rpc.DecodeError(m); !errors.Is(taskErr, fs.ErrPermission) || taskErr.Error() != "open: permission denied" {
		t.Errorf("decoded %v, want open: permission denied matching fs.ErrPermission", taskErr)
	}
	if n := rpc.PendingLocal(); n != before {
		t.Errorf("Handoff holds %d values, %d before the call", n, before)
	}

	// A request's reference is taken on the sending side, and the caller's
	// message is left as it was.
	req := &rpcpb.TaskExecutionState{Task: task, Error: rpc.EncodeError(errors.New("task failed"))}
	ref := req.GetError().GetEmbeddedRef()
	if _, err := wait(c.jm.UpdateTaskExecutionState(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	if req.GetError().GetEmbeddedRef() != ref {
		t.Error("the call changed the caller's message")
	}
	if got := c.rec.request("JobMaster.UpdateTaskExecutionState").(*rpcpb.TaskExecutionState); got.GetError().GetEmbeddedRef() != 0 || got.GetError().GetMessage() != "task failed" {
		t.Errorf("handler got error %v, want its text without reference", got.GetError())
	}
	if n := rpc.PendingLocal(); n != before {
		t.Errorf("Handoff holds %d values, %d before the call", n, before)
	}
}

// TestCancelledContextCancelsTheCall: cancelling the caller's context ends
// the call on both sides: the caller gets context.Canceled, the handler's
// context ends.
func TestCancelledContextCancelsTheCall(t *testing.T) {
	c := newCluster(t)
	c.rec.hold = "TaskExecutor.TriggerCheckpoint"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := c.te.TriggerCheckpoint(ctx, &rpcpb.TriggerCheckpointRequest{Task: task})
	<-c.rec.held
	// A call that waits does not hold up the next one on the same stream.
	if _, err := wait(c.te.NotifyCheckpointComplete(context.Background(), &rpcpb.NotifyCheckpointComplete{Task: task, CheckpointId: 1})); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := f.Wait(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("caller got %v, want context.Canceled", err)
	}
	if err := <-c.rec.ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("handler's context ended with %v, want context.Canceled", err)
	}
	// A context cancelled before the call fails it without sending it.
	if _, err := wait(c.te.CancelTask(ctx, &rpcpb.CancelTaskRequest{Task: task})); !errors.Is(err, context.Canceled) {
		t.Fatalf("call with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestGoneServerIsUnreachable: a call to a server that closed, to a port
// no server listens on, or to an endpoint the server does not serve fails
// with rpc.ErrUnreachable, well before the caller's deadline.
func TestGoneServerIsUnreachable(t *testing.T) {
	closed := newCluster(t)
	closed.srv.Close()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	never := free.Addr().String()
	if err := free.Close(); err != nil {
		t.Fatal(err)
	}
	open := newCluster(t)
	tests := []struct {
		name string
		gw   rpc.JobMasterGateway
	}{
		{"closed server", closed.jm},
		{"no server", open.client.JobMaster(grpcrpc.Address(never, "job-1"))},
		{"no endpoint", open.client.JobMaster(grpcrpc.Address(open.srv.Addr(), "job-2"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The deadline only tells a slow failure from a quick one:
			// the call must fail with ErrUnreachable, not DeadlineExceeded.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := wait(tc.gw.EndOfData(ctx, &rpcpb.EndOfData{Task: task}))
			if !errors.Is(err, rpc.ErrUnreachable) {
				t.Fatalf("got %v, want rpc.ErrUnreachable", err)
			}
			t.Log(err)
		})
	}
}

func TestServeTwiceUnderOneNameFails(t *testing.T) {
	c := newCluster(t)
	if _, err := c.srv.ServeJobMaster("job-1", jobMaster{c.rec}); err == nil {
		t.Fatal("a second JobMaster was served under job-1")
	}
}

func TestListenOnBusyAddressFails(t *testing.T) {
	c := newCluster(t)
	if _, err := grpcrpc.Listen(c.srv.Addr()); err == nil {
		t.Fatalf("listened twice on %s", c.srv.Addr())
	}
}

func TestClosedClientFailsCalls(t *testing.T) {
	c := newCluster(t)
	if err := c.client.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := wait(c.rm.Heartbeat(context.Background(), &rpcpb.Heartbeat{})); !errors.Is(err, grpcrpc.ErrClosed) {
		t.Fatalf("call through a closed client: %v, want ErrClosed", err)
	}
}

// TestCallsArriveInTheOrderTheyWereMade: calls made one after the other
// without waiting reach the handler in that order, as with rpc.Local, also
// across methods of one gateway.
func TestCallsArriveInTheOrderTheyWereMade(t *testing.T) {
	c := newCluster(t)
	const n = 500
	var futures []*rpc.Future[*rpcpb.Ack]
	for i := range int64(n) {
		if i%2 == 0 {
			futures = append(futures, c.jm.AcknowledgeCheckpoint(context.Background(), &rpcpb.AcknowledgeCheckpoint{Task: task, CheckpointId: i}))
		} else {
			futures = append(futures, c.jm.DeclineCheckpoint(context.Background(), &rpcpb.DeclineCheckpoint{Task: task, CheckpointId: i}))
		}
	}
	for _, f := range futures {
		if _, err := f.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	c.rec.mu.Lock()
	defer c.rec.mu.Unlock()
	if len(c.rec.log) != n {
		t.Fatalf("handler got %d calls, want %d", len(c.rec.log), n)
	}
	for i, m := range c.rec.log {
		id := m.(interface{ GetCheckpointId() int64 }).GetCheckpointId()
		if id != int64(i) {
			t.Fatalf("call %d to arrive was checkpoint %d", i, id)
		}
	}
}

// TestCallsInFlightFailWhenTheServerGoes: a call waiting for its answer
// when the server closes fails with rpc.ErrUnreachable, and so does the
// next call.
func TestCallsInFlightFailWhenTheServerGoes(t *testing.T) {
	c := newCluster(t)
	c.rec.hold = "JobMaster.RequestSplit"
	f := c.jm.RequestSplit(context.Background(), &rpcpb.SplitRequest{Task: task, OperatorUid: "src"})
	<-c.rec.held
	c.srv.Close()
	if _, err := f.Wait(context.Background()); !errors.Is(err, rpc.ErrUnreachable) {
		t.Fatalf("call in flight: %v, want rpc.ErrUnreachable", err)
	}
	if err := <-c.rec.ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("handler's context ended with %v, want context.Canceled", err)
	}
	if _, err := wait(c.jm.EndOfData(context.Background(), &rpcpb.EndOfData{Task: task})); !errors.Is(err, rpc.ErrUnreachable) {
		t.Fatalf("next call: %v, want rpc.ErrUnreachable", err)
	}
}

// TestLargeMessageRoundTrips: a message above gRPC's default limit of
// 4 MiB (a deployment with many state handles) crosses both ways.
func TestLargeMessageRoundTrips(t *testing.T) {
	c := newCluster(t)
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i)
	}
	want := &rpcpb.SplitAssignment{Task: task, OperatorUid: "src", Split: big}
	c.rec.mu.Lock()
	c.rec.answers["JobMaster.RequestSplit"] = want
	c.rec.mu.Unlock()
	got, err := wait(c.jm.RequestSplit(context.Background(), &rpcpb.SplitRequest{Task: task, OperatorUid: strings.Repeat("u", 5<<20)}))
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) {
		t.Fatal("the 8 MiB answer changed on the way")
	}
}

// TestUnsendableCallFailsAlone: a call or an answer that cannot be
// encoded fails that call with the reason, and the calls around it on the
// same stream go through.
func TestUnsendableCallFailsAlone(t *testing.T) {
	c := newCluster(t)
	before := c.jm.EndOfData(context.Background(), &rpcpb.EndOfData{Task: task})
	bad := c.jm.RequestSplit(context.Background(), &rpcpb.SplitRequest{Task: task, OperatorUid: "\xff"})
	after := c.jm.EndOfData(context.Background(), &rpcpb.EndOfData{Task: task})
	if _, err := wait(bad); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("call with invalid UTF-8: %v, want an encoding error", err)
	}
	for _, f := range []*rpc.Future[*rpcpb.Ack]{before, after} {
		if _, err := wait(f); err != nil {
			t.Fatal(err)
		}
	}
	c.rec.mu.Lock()
	c.rec.answers["JobMaster.RequestSplit"] = &rpcpb.SplitAssignment{OperatorUid: "\xfe"}
	c.rec.mu.Unlock()
	if _, err := wait(c.jm.RequestSplit(context.Background(), &rpcpb.SplitRequest{Task: task})); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("answer with invalid UTF-8: %v, want an encoding error", err)
	}
	if _, err := wait(c.jm.EndOfData(context.Background(), &rpcpb.EndOfData{Task: task})); err != nil {
		t.Fatal(err)
	}
}
