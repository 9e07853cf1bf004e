package grpcrpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// ErrClosed is the error of a call through a closed Client.
var ErrClosed = errors.New("grpcrpc: client closed")

// Client reaches gateways served by Servers, by address, over one
// connection per server that it dials on first use. It is safe for
// concurrent use.
type Client struct {
	log *slog.Logger
	mu  struct {
		sync.Mutex
		conns  map[string]*grpc.ClientConn
		closed bool
	}
}

// NewClient returns a client with no connection yet.
func NewClient(opts ...Option) *Client {
	o := buildOptions(opts)
	c := &Client{log: o.log}
	c.mu.conns = map[string]*grpc.ClientConn{}
	return c
}

// conn returns the connection to the server at hostport.
func (c *Client) conn(hostport string) (*grpc.ClientConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.closed {
		return nil, ErrClosed
	}
	if cc, ok := c.mu.conns[hostport]; ok {
		return cc, nil
	}
	// passthrough: the address is dialled as it is, with no resolver of
	// its own in between.
	cc, err := grpc.NewClient("passthrough:///"+hostport, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("grpcrpc: connect to %s: %w", hostport, err)
	}
	c.mu.conns[hostport] = cc
	return cc, nil
}

// Close closes every connection; calls in flight fail.
func (c *Client) Close() error {
	c.mu.Lock()
	conns := c.mu.conns
	c.mu.conns = nil
	c.mu.closed = true
	c.mu.Unlock()
	var errs []error
	for _, cc := range conns {
		errs = append(errs, cc.Close())
	}
	return errors.Join(errs...)
}

// JobMaster returns a client of the JobMaster served at addr.
func (c *Client) JobMaster(addr string) rpc.JobMasterGateway {
	return jobMasterClient{endpoint[rpcpb.JobMasterServiceClient]{c, addr, rpcpb.NewJobMasterServiceClient}}
}

// TaskExecutor returns a client of the TaskManager served at addr.
func (c *Client) TaskExecutor(addr string) rpc.TaskExecutorGateway {
	return taskExecutorClient{endpoint[rpcpb.TaskExecutorServiceClient]{c, addr, rpcpb.NewTaskExecutorServiceClient}}
}

// ResourceManager returns a client of the ResourceManager served at addr.
func (c *Client) ResourceManager(addr string) rpc.ResourceManagerGateway {
	return resourceManagerClient{endpoint[rpcpb.ResourceManagerServiceClient]{c, addr, rpcpb.NewResourceManagerServiceClient}}
}

// endpoint is a gateway's address and the constructor of its service's
// stub S.
type endpoint[S any] struct {
	c    *Client
	addr string
	stub func(grpc.ClientConnInterface) S
}

// call makes the call named method on e in a goroutine of its own and
// returns its answer's future.
func call[S any, Req, Resp proto.Message](ctx context.Context, e endpoint[S], method string, req Req, invoke func(S, context.Context, Req, ...grpc.CallOption) (Resp, error)) *rpc.Future[Resp] {
	if err := ctx.Err(); err != nil {
		return rpc.Failed[Resp](err)
	}
	hostport, name, err := splitAddress(e.addr)
	if err != nil {
		return rpc.Failed[Resp](err)
	}
	cc, err := e.c.conn(hostport)
	if err != nil {
		return rpc.Failed[Resp](fmt.Errorf("grpcrpc: %s on %s: %w", method, e.addr, err))
	}
	out := outgoing(req)
	if name != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, endpointKey, name)
	}
	f := rpc.NewFuture[Resp]()
	go func() {
		resp, err := invoke(e.stub(cc), ctx, out)
		if err != nil {
			var zero Resp
			f.Complete(zero, callError(ctx, e.addr, method, err))
			return
		}
		f.Complete(incoming(resp), nil)
	}()
	return f
}

type jobMasterClient struct {
	e endpoint[rpcpb.JobMasterServiceClient]
}

func (c jobMasterClient) UpdateTaskExecutionState(ctx context.Context, m *rpcpb.TaskExecutionState) *rpc.Future[*rpcpb.UpdateTaskExecutionStateResponse] {
	return call(ctx, c.e, "UpdateTaskExecutionState", m, rpcpb.JobMasterServiceClient.UpdateTaskExecutionState)
}

func (c jobMasterClient) AcknowledgeCheckpoint(ctx context.Context, m *rpcpb.AcknowledgeCheckpoint) *rpc.Future[*rpcpb.Ack] {
	return call(ctx, c.e, "AcknowledgeCheckpoint", m, rpcpb.JobMasterServiceClient.AcknowledgeCheckpoint)
}

func (c jobMasterClient) DeclineCheckpoint(ctx context.Context, m *rpcpb.DeclineCheckpoint) *rpc.Future[*rpcpb.Ack] {
	return call(ctx, c.e, "DeclineCheckpoint", m, rpcpb.JobMasterServiceClient.DeclineCheckpoint)
}

func (c jobMasterClient) EndOfData(ctx context.Context, m *rpcpb.EndOfData) *rpc.Future[*rpcpb.Ack] {
	return call(ctx, c.e, "EndOfData", m, rpcpb.JobMasterServiceClient.EndOfData)
}

func (c jobMasterClient) RequestSplit(ctx context.Context, m *rpcpb.SplitRequest) *rpc.Future[*rpcpb.SplitAssignment] {
	return call(ctx, c.e, "RequestSplit", m, rpcpb.JobMasterServiceClient.RequestSplit)
}

func (c jobMasterClient) OfferSlots(ctx context.Context, m *rpcpb.OfferSlotsRequest) *rpc.Future[*rpcpb.OfferSlotsResponse] {
	return call(ctx, c.e, "OfferSlots", m, rpcpb.JobMasterServiceClient.OfferSlots)
}

func (c jobMasterClient) DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	return call(ctx, c.e, "DisconnectTaskManager", m, rpcpb.JobMasterServiceClient.DisconnectTaskManager)
}

type taskExecutorClient struct {
	e endpoint[rpcpb.TaskExecutorServiceClient]
}

func (c taskExecutorClient) SubmitTask(ctx context.Context, m *rpcpb.TaskDeploymentDescriptor) *rpc.Future[*rpcpb.SubmitTaskResponse] {
	return call(ctx, c.e, "SubmitTask", m, rpcpb.TaskExecutorServiceClient.SubmitTask)
}

func (c taskExecutorClient) CancelTask(ctx context.Context, m *rpcpb.CancelTaskRequest) *rpc.Future[*rpcpb.CancelTaskResponse] {
	return call(ctx, c.e, "CancelTask", m, rpcpb.TaskExecutorServiceClient.CancelTask)
}

func (c taskExecutorClient) TriggerCheckpoint(ctx context.Context, m *rpcpb.TriggerCheckpointRequest) *rpc.Future[*rpcpb.TriggerCheckpointResponse] {
	return call(ctx, c.e, "TriggerCheckpoint", m, rpcpb.TaskExecutorServiceClient.TriggerCheckpoint)
}

func (c taskExecutorClient) NotifyCheckpointComplete(ctx context.Context, m *rpcpb.NotifyCheckpointComplete) *rpc.Future[*rpcpb.Ack] {
	return call(ctx, c.e, "NotifyCheckpointComplete", m, rpcpb.TaskExecutorServiceClient.NotifyCheckpointComplete)
}

func (c taskExecutorClient) NotifyCheckpointAborted(ctx context.Context, m *rpcpb.NotifyCheckpointAborted) *rpc.Future[*rpcpb.Ack] {
	return call(ctx, c.e, "NotifyCheckpointAborted", m, rpcpb.TaskExecutorServiceClient.NotifyCheckpointAborted)
}

func (c taskExecutorClient) RequestSlot(ctx context.Context, m *rpcpb.RequestSlotRequest) *rpc.Future[*rpcpb.RequestSlotResponse] {
	return call(ctx, c.e, "RequestSlot", m, rpcpb.TaskExecutorServiceClient.RequestSlot)
}

func (c taskExecutorClient) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	return call(ctx, c.e, "Heartbeat", m, rpcpb.TaskExecutorServiceClient.Heartbeat)
}

type resourceManagerClient struct {
	e endpoint[rpcpb.ResourceManagerServiceClient]
}

func (c resourceManagerClient) RegisterTaskManager(ctx context.Context, m *rpcpb.RegisterTaskManagerRequest) *rpc.Future[*rpcpb.RegisterTaskManagerResponse] {
	return call(ctx, c.e, "RegisterTaskManager", m, rpcpb.ResourceManagerServiceClient.RegisterTaskManager)
}

func (c resourceManagerClient) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	return call(ctx, c.e, "Heartbeat", m, rpcpb.ResourceManagerServiceClient.Heartbeat)
}

func (c resourceManagerClient) DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	return call(ctx, c.e, "DisconnectTaskManager", m, rpcpb.ResourceManagerServiceClient.DisconnectTaskManager)
}
