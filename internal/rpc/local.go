package rpc

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/protobuf/proto"
)

// ErrUnreachable is the error of a call to an address that no endpoint
// serves (a TaskManager that left, a job that ended).
var ErrUnreachable = errors.New("rpc: unreachable")

// Local is the in-process transport: endpoints serve a gateway under an
// address, and clients reach them by that address. It is safe for
// concurrent use.
type Local struct {
	encode bool
	mu     struct {
		sync.Mutex
		jobMasters      map[string]JobMasterGateway
		taskExecutors   map[string]TaskExecutorGateway
		resourceManager map[string]ResourceManagerGateway
	}
}

// NewLocal returns a transport that encodes every message when Encoding
// reports true.
func NewLocal() *Local { return NewLocalEncoding(Encoding()) }

// NewLocalEncoding returns a transport that encodes every message when
// encode is set.
func NewLocalEncoding(encode bool) *Local {
	l := &Local{encode: encode}
	l.mu.jobMasters = map[string]JobMasterGateway{}
	l.mu.taskExecutors = map[string]TaskExecutorGateway{}
	l.mu.resourceManager = map[string]ResourceManagerGateway{}
	return l
}

// Encodes reports whether the transport encodes its messages.
func (l *Local) Encodes() bool { return l.encode }

// serve adds g under addr to m and returns the function that removes it.
func serve[G any](l *Local, m map[string]G, addr string, g G) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, dup := m[addr]; dup {
		return nil, fmt.Errorf("rpc: address %q is already served", addr)
	}
	m[addr] = g
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(m, addr)
	}, nil
}

func lookup[G any](l *Local, m map[string]G, addr string) (G, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	g, ok := m[addr]
	return g, ok
}

// ServeJobMaster serves g under addr until the returned stop is called.
func (l *Local) ServeJobMaster(addr string, g JobMasterGateway) (stop func(), err error) {
	return serve(l, l.mu.jobMasters, addr, g)
}

// ServeTaskExecutor serves g under addr until the returned stop is called.
func (l *Local) ServeTaskExecutor(addr string, g TaskExecutorGateway) (stop func(), err error) {
	return serve(l, l.mu.taskExecutors, addr, g)
}

// ServeResourceManager serves g under addr until the returned stop is
// called.
func (l *Local) ServeResourceManager(addr string, g ResourceManagerGateway) (stop func(), err error) {
	return serve(l, l.mu.resourceManager, addr, g)
}

// call carries req to the endpoint that lookup finds under addr, runs
// handle there with the request as the endpoint receives it, and carries
// the answer back.
func call[G any, Req, Resp proto.Message](ctx context.Context, l *Local, m map[string]G, addr string, req Req, handle func(G, context.Context, Req) *Future[Resp]) *Future[Resp] {
	if err := ctx.Err(); err != nil {
		return Failed[Resp](err)
	}
	g, ok := lookup(l, m, addr)
	if !ok {
		return Failed[Resp](fmt.Errorf("%w: %q", ErrUnreachable, addr))
	}
	in, err := cross(req, l.encode)
	if err != nil {
		return Failed[Resp](err)
	}
	return Then(handle(g, ctx, in), func(resp Resp) (Resp, error) { return cross(resp, l.encode) })
}

// JobMaster returns a client of the JobMaster served under addr.
func (l *Local) JobMaster(addr string) JobMasterGateway { return jobMasterClient{l, addr} }

// TaskExecutor returns a client of the TaskManager served under addr.
func (l *Local) TaskExecutor(addr string) TaskExecutorGateway { return taskExecutorClient{l, addr} }

// ResourceManager returns a client of the ResourceManager served under
// addr.
func (l *Local) ResourceManager(addr string) ResourceManagerGateway {
	return resourceManagerClient{l, addr}
}

type jobMasterClient struct {
	l    *Local
	addr string
}

func (c jobMasterClient) UpdateTaskExecutionState(ctx context.Context, m *rpcpb.TaskExecutionState) *Future[*rpcpb.UpdateTaskExecutionStateResponse] {
	return call(ctx, c.l, c.l.mu.jobMasters, c.addr, m, JobMasterGateway.UpdateTaskExecutionState)
}

func (c jobMasterClient) AcknowledgeCheckpoint(ctx context.Context, m *rpcpb.AcknowledgeCheckpoint) *Future[*rpcpb.Ack] {
	return call(ctx, c.l, c.l.mu.jobMasters, c.addr, m, JobMasterGateway.AcknowledgeCheckpoint)
}

func (c jobMasterClient) DeclineCheckpoint(ctx context.Context, m *rpcpb.DeclineCheckpoint) *Future[*rpcpb.Ack] {
	return call(ctx, c.l, c.l.mu.jobMasters, c.addr, m, JobMasterGateway.DeclineCheckpoint)
}

func (c jobMasterClient) EndOfData(ctx context.Context, m *rpcpb.EndOfData) *Future[*rpcpb.Ack] {
	return call(ctx, c.l, c.l.mu.jobMasters, c.addr, m, JobMasterGateway.EndOfData)
}

func (c jobMasterClient) RequestSplit(ctx context.Context, m *rpcpb.SplitRequest) *Future[*rpcpb.SplitAssignment] {
	return call(ctx, c.l, c.l.mu.jobMasters, c.addr, m, JobMasterGateway.RequestSplit)
}

func (c jobMasterClient) ReportWatermark(ctx context.Context, m *rpcpb.WatermarkReport) *Future[*rpcpb.WatermarkAlignment] {
	return call(ctx, c.l, c.l.mu.jobMasters, c.addr, m, JobMasterGateway.ReportWatermark)
}

func (c jobMasterClient) OfferSlots(ctx context.Context, m *rpcpb.OfferSlotsRequest) *Future[*rpcpb.OfferSlotsResponse] {
	return call(ctx, c.l, c.l.mu.jobMasters, c.addr, m, JobMasterGateway.OfferSlots)
}

func (c jobMasterClient) DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) *Future[*rpcpb.Ack] {
	return call(ctx, c.l, c.l.mu.jobMasters, c.addr, m, JobMasterGateway.DisconnectTaskManager)
}

type taskExecutorClient struct {
	l    *Local
	addr string
}

func (c taskExecutorClient) SubmitTask(ctx context.Context, m *rpcpb.TaskDeploymentDescriptor) *Future[*rpcpb.SubmitTaskResponse] {
	return call(ctx, c.l, c.l.mu.taskExecutors, c.addr, m, TaskExecutorGateway.SubmitTask)
}

func (c taskExecutorClient) CancelTask(ctx context.Context, m *rpcpb.CancelTaskRequest) *Future[*rpcpb.CancelTaskResponse] {
	return call(ctx, c.l, c.l.mu.taskExecutors, c.addr, m, TaskExecutorGateway.CancelTask)
}

func (c taskExecutorClient) TriggerCheckpoint(ctx context.Context, m *rpcpb.TriggerCheckpointRequest) *Future[*rpcpb.TriggerCheckpointResponse] {
	return call(ctx, c.l, c.l.mu.taskExecutors, c.addr, m, TaskExecutorGateway.TriggerCheckpoint)
}

func (c taskExecutorClient) NotifyCheckpointComplete(ctx context.Context, m *rpcpb.NotifyCheckpointComplete) *Future[*rpcpb.Ack] {
	return call(ctx, c.l, c.l.mu.taskExecutors, c.addr, m, TaskExecutorGateway.NotifyCheckpointComplete)
}

func (c taskExecutorClient) NotifyCheckpointAborted(ctx context.Context, m *rpcpb.NotifyCheckpointAborted) *Future[*rpcpb.Ack] {
	return call(ctx, c.l, c.l.mu.taskExecutors, c.addr, m, TaskExecutorGateway.NotifyCheckpointAborted)
}

func (c taskExecutorClient) RequestSlot(ctx context.Context, m *rpcpb.RequestSlotRequest) *Future[*rpcpb.RequestSlotResponse] {
	return call(ctx, c.l, c.l.mu.taskExecutors, c.addr, m, TaskExecutorGateway.RequestSlot)
}

func (c taskExecutorClient) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *Future[*rpcpb.Heartbeat] {
	return call(ctx, c.l, c.l.mu.taskExecutors, c.addr, m, TaskExecutorGateway.Heartbeat)
}

type resourceManagerClient struct {
	l    *Local
	addr string
}

func (c resourceManagerClient) RegisterTaskManager(ctx context.Context, m *rpcpb.RegisterTaskManagerRequest) *Future[*rpcpb.RegisterTaskManagerResponse] {
	return call(ctx, c.l, c.l.mu.resourceManager, c.addr, m, ResourceManagerGateway.RegisterTaskManager)
}

func (c resourceManagerClient) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *Future[*rpcpb.Heartbeat] {
	return call(ctx, c.l, c.l.mu.resourceManager, c.addr, m, ResourceManagerGateway.Heartbeat)
}

func (c resourceManagerClient) DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) *Future[*rpcpb.Ack] {
	return call(ctx, c.l, c.l.mu.resourceManager, c.addr, m, ResourceManagerGateway.DisconnectTaskManager)
}
