package grpcrpc

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// callStream is a gateway's Calls stream with its envelopes as messages.
type callStream interface {
	send(proto.Message) error
	recv() (proto.Message, error)
}

type streamOf[C, R any] struct {
	s grpc.BidiStreamingClient[C, R]
}

func (x streamOf[C, R]) send(m proto.Message) error { return x.s.Send(any(m).(*C)) }

func (x streamOf[C, R]) recv() (proto.Message, error) {
	r, err := x.s.Recv()
	if err != nil {
		return nil, err
	}
	return any(r).(proto.Message), nil
}

// gatewayKind is a gateway's service as a client's sessions use it.
type gatewayKind struct {
	name    string
	open    func(grpc.ClientConnInterface, context.Context) (callStream, error)
	newCall func() proto.Message
}

var (
	jobMasterKind = gatewayKind{
		name: "JobMaster",
		open: func(cc grpc.ClientConnInterface, ctx context.Context) (callStream, error) {
			s, err := rpcpb.NewJobMasterServiceClient(cc).Calls(ctx)
			return streamOf[rpcpb.JobMasterCall, rpcpb.JobMasterReply]{s}, err
		},
		newCall: func() proto.Message { return &rpcpb.JobMasterCall{} },
	}
	taskExecutorKind = gatewayKind{
		name: "TaskExecutor",
		open: func(cc grpc.ClientConnInterface, ctx context.Context) (callStream, error) {
			s, err := rpcpb.NewTaskExecutorServiceClient(cc).Calls(ctx)
			return streamOf[rpcpb.TaskExecutorCall, rpcpb.TaskExecutorReply]{s}, err
		},
		newCall: func() proto.Message { return &rpcpb.TaskExecutorCall{} },
	}
	resourceManagerKind = gatewayKind{
		name: "ResourceManager",
		open: func(cc grpc.ClientConnInterface, ctx context.Context) (callStream, error) {
			s, err := rpcpb.NewResourceManagerServiceClient(cc).Calls(ctx)
			return streamOf[rpcpb.ResourceManagerCall, rpcpb.ResourceManagerReply]{s}, err
		},
		newCall: func() proto.Message { return &rpcpb.ResourceManagerCall{} },
	}
)

// session is a client's stream of calls to one gateway kind of one
// server: calls go out in the order they are made, from one goroutine,
// and answers are matched to their calls by id on another. A session whose
// stream breaks fails its pending calls and is dropped; the next call
// opens a new one.
type session struct {
	c        *Client
	kind     gatewayKind
	hostport string
	out      *outbox[proto.Message]
	cancel   context.CancelFunc // ends the stream
	done     chan struct{}      // closed when its goroutines ended
	mu       struct {
		sync.Mutex
		next    uint64
		pending map[uint64]*pending
		broken  error
	}
}

// pending is a call that waits for its answer.
type pending struct {
	method   string
	field    protoreflect.Name
	addr     string
	complete func(proto.Message, error)
}

func sessionKey(kind gatewayKind, hostport string) string { return kind.name + " " + hostport }

// session returns the open session of kind to hostport, or opens one.
func (c *Client) session(kind gatewayKind, hostport string) (*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.closed {
		return nil, ErrClosed
	}
	key := sessionKey(kind, hostport)
	if s, ok := c.mu.sessions[key]; ok {
		return s, nil
	}
	cc, err := c.connLocked(hostport)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{c: c, kind: kind, hostport: hostport, out: newOutbox[proto.Message](), cancel: cancel, done: make(chan struct{})}
	s.mu.pending = map[uint64]*pending{}
	c.mu.sessions[key] = s
	go s.run(ctx, cc)
	return s, nil
}

// run opens the stream, then sends the queued calls in order while
// another goroutine receives the answers, until the stream breaks or the
// session is closed.
func (s *session) run(ctx context.Context, cc grpc.ClientConnInterface) {
	defer close(s.done)
	stream, err := s.kind.open(cc, ctx)
	if err != nil {
		s.fail(err)
		return
	}
	received := make(chan struct{})
	go func() {
		defer close(received)
		for {
			reply, err := stream.recv()
			if err != nil {
				s.fail(err)
				return
			}
			s.answer(reply)
		}
	}()
	if err := s.out.run(stream.send); err != nil {
		s.fail(err)
	}
	s.cancel()
	<-received
}

// fail breaks the session: it is dropped from its client, its pending
// calls fail, and its stream ends.
func (s *session) fail(cause error) {
	s.mu.Lock()
	if s.mu.broken != nil {
		s.mu.Unlock()
		return
	}
	s.mu.broken = cause
	calls := s.mu.pending
	s.mu.pending = nil
	s.mu.Unlock()
	s.c.drop(s)
	s.out.close()
	s.cancel()
	for _, p := range calls {
		p.complete(nil, s.c.brokenError(p, cause))
	}
}

// close ends the session and waits for its goroutines.
func (s *session) close() {
	s.fail(ErrClosed)
	<-s.done
}

// start queues a call of field with req to the endpoint name; ok is
// false when the session broke first.
func (s *session) start(p *pending, endpoint string, req proto.Message) (id uint64, ok bool) {
	call := s.kind.newCall()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.broken != nil {
		return 0, false
	}
	s.mu.next++
	id = s.mu.next
	setField(call, "header", &rpcpb.CallHeader{Id: id, Endpoint: endpoint})
	setField(call, p.field, req)
	s.mu.pending[id] = p
	// Under s.mu, so that the calls are queued in the order of their ids.
	s.out.push(call)
	return id, true
}

// abandon forgets call id and tells the server to cancel it; false when
// it was answered already.
func (s *session) abandon(id uint64) (*pending, bool) {
	s.mu.Lock()
	p, ok := s.mu.pending[id]
	delete(s.mu.pending, id)
	s.mu.Unlock()
	if !ok {
		return nil, false
	}
	call := s.kind.newCall()
	setField(call, "header", &rpcpb.CallHeader{Id: id})
	setField(call, "cancel", &rpcpb.CallCancel{Id: id})
	s.out.push(call)
	return p, true
}

// answer completes the call a reply answers.
func (s *session) answer(reply proto.Message) {
	r := reply.ProtoReflect()
	id := r.Get(r.Descriptor().Fields().ByName("id")).Uint()
	s.mu.Lock()
	p, ok := s.mu.pending[id]
	delete(s.mu.pending, id)
	s.mu.Unlock()
	if !ok {
		return // abandoned
	}
	name, resp := oneofField(reply, "response")
	switch name {
	case "failure":
		f := resp.(*rpcpb.CallFailure)
		if f.GetUnreachable() {
			p.complete(nil, fmt.Errorf("%w: %s on %s: %s", rpc.ErrUnreachable, p.method, p.addr, f.GetError().GetMessage()))
			return
		}
		p.complete(nil, rpc.DecodeError(incoming(f.GetError())))
	case p.field:
		p.complete(incoming(resp), nil)
	default:
		p.complete(nil, fmt.Errorf("grpcrpc: %s on %s: the answer carries %q", p.method, p.addr, name))
	}
}

// brokenError is the error of a call whose session broke.
func (c *Client) brokenError(p *pending, cause error) error {
	if errors.Is(cause, ErrClosed) {
		return fmt.Errorf("grpcrpc: %s on %s: %w", p.method, p.addr, ErrClosed)
	}
	return callError(context.Background(), p.addr, p.method, cause)
}

// call makes a call of method (its envelope field) with req on the
// gateway kind at addr, and returns its answer's future.
func call[Resp proto.Message](ctx context.Context, c *Client, kind gatewayKind, addr, method string, field protoreflect.Name, req proto.Message) *rpc.Future[Resp] {
	if err := ctx.Err(); err != nil {
		return rpc.Failed[Resp](err)
	}
	hostport, endpoint, err := splitAddress(addr)
	if err != nil {
		return rpc.Failed[Resp](err)
	}
	f := rpc.NewFuture[Resp]()
	p := &pending{method: method, field: field, addr: addr, complete: func(m proto.Message, err error) {
		if err != nil {
			var zero Resp
			f.Complete(zero, err)
			return
		}
		f.Complete(m.(Resp), nil)
	}}
	out := outgoing(req)
	if err := encodable(out); err != nil {
		// Sent, it would break the stream and every call on it.
		return rpc.Failed[Resp](fmt.Errorf("grpcrpc: %s on %s: %w", method, addr, err))
	}
	for range 2 { // a session that broke under us is replaced once
		s, err := c.session(kind, hostport)
		if err != nil {
			return rpc.Failed[Resp](fmt.Errorf("grpcrpc: %s on %s: %w", method, addr, err))
		}
		id, ok := s.start(p, endpoint, out)
		if !ok {
			continue
		}
		if ctx.Done() != nil {
			stop := context.AfterFunc(ctx, func() {
				if p, ok := s.abandon(id); ok {
					p.complete(nil, fmt.Errorf("grpcrpc: %s on %s: %w", method, addr, ctx.Err()))
				}
			})
			f.OnComplete(func(Resp, error) { stop() })
		}
		return f
	}
	return rpc.Failed[Resp](fmt.Errorf("%w: %s on %s: the connection keeps breaking", rpc.ErrUnreachable, method, addr))
}

// JobMaster returns a client of the JobMaster served at addr.
func (c *Client) JobMaster(addr string) rpc.JobMasterGateway { return jobMasterClient{c, addr} }

// TaskExecutor returns a client of the TaskManager served at addr.
func (c *Client) TaskExecutor(addr string) rpc.TaskExecutorGateway {
	return taskExecutorClient{c, addr}
}

// ResourceManager returns a client of the ResourceManager served at addr.
func (c *Client) ResourceManager(addr string) rpc.ResourceManagerGateway {
	return resourceManagerClient{c, addr}
}

type jobMasterClient struct {
	c    *Client
	addr string
}

func (x jobMasterClient) UpdateTaskExecutionState(ctx context.Context, m *rpcpb.TaskExecutionState) *rpc.Future[*rpcpb.UpdateTaskExecutionStateResponse] {
	return call[*rpcpb.UpdateTaskExecutionStateResponse](ctx, x.c, jobMasterKind, x.addr, "UpdateTaskExecutionState", "update_task_execution_state", m)
}

func (x jobMasterClient) AcknowledgeCheckpoint(ctx context.Context, m *rpcpb.AcknowledgeCheckpoint) *rpc.Future[*rpcpb.Ack] {
	return call[*rpcpb.Ack](ctx, x.c, jobMasterKind, x.addr, "AcknowledgeCheckpoint", "acknowledge_checkpoint", m)
}

func (x jobMasterClient) DeclineCheckpoint(ctx context.Context, m *rpcpb.DeclineCheckpoint) *rpc.Future[*rpcpb.Ack] {
	return call[*rpcpb.Ack](ctx, x.c, jobMasterKind, x.addr, "DeclineCheckpoint", "decline_checkpoint", m)
}

func (x jobMasterClient) EndOfData(ctx context.Context, m *rpcpb.EndOfData) *rpc.Future[*rpcpb.Ack] {
	return call[*rpcpb.Ack](ctx, x.c, jobMasterKind, x.addr, "EndOfData", "end_of_data", m)
}

func (x jobMasterClient) RequestSplit(ctx context.Context, m *rpcpb.SplitRequest) *rpc.Future[*rpcpb.SplitAssignment] {
	return call[*rpcpb.SplitAssignment](ctx, x.c, jobMasterKind, x.addr, "RequestSplit", "request_split", m)
}

func (x jobMasterClient) ReportWatermark(ctx context.Context, m *rpcpb.WatermarkReport) *rpc.Future[*rpcpb.WatermarkAlignment] {
	return call[*rpcpb.WatermarkAlignment](ctx, x.c, jobMasterKind, x.addr, "ReportWatermark", "report_watermark", m)
}

func (x jobMasterClient) OfferSlots(ctx context.Context, m *rpcpb.OfferSlotsRequest) *rpc.Future[*rpcpb.OfferSlotsResponse] {
	return call[*rpcpb.OfferSlotsResponse](ctx, x.c, jobMasterKind, x.addr, "OfferSlots", "offer_slots", m)
}

func (x jobMasterClient) DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	return call[*rpcpb.Ack](ctx, x.c, jobMasterKind, x.addr, "DisconnectTaskManager", "disconnect_task_manager", m)
}

type taskExecutorClient struct {
	c    *Client
	addr string
}

func (x taskExecutorClient) SubmitTask(ctx context.Context, m *rpcpb.TaskDeploymentDescriptor) *rpc.Future[*rpcpb.SubmitTaskResponse] {
	return call[*rpcpb.SubmitTaskResponse](ctx, x.c, taskExecutorKind, x.addr, "SubmitTask", "submit_task", m)
}

func (x taskExecutorClient) CancelTask(ctx context.Context, m *rpcpb.CancelTaskRequest) *rpc.Future[*rpcpb.CancelTaskResponse] {
	return call[*rpcpb.CancelTaskResponse](ctx, x.c, taskExecutorKind, x.addr, "CancelTask", "cancel_task", m)
}

func (x taskExecutorClient) TriggerCheckpoint(ctx context.Context, m *rpcpb.TriggerCheckpointRequest) *rpc.Future[*rpcpb.TriggerCheckpointResponse] {
	return call[*rpcpb.TriggerCheckpointResponse](ctx, x.c, taskExecutorKind, x.addr, "TriggerCheckpoint", "trigger_checkpoint", m)
}

func (x taskExecutorClient) NotifyCheckpointComplete(ctx context.Context, m *rpcpb.NotifyCheckpointComplete) *rpc.Future[*rpcpb.Ack] {
	return call[*rpcpb.Ack](ctx, x.c, taskExecutorKind, x.addr, "NotifyCheckpointComplete", "notify_checkpoint_complete", m)
}

func (x taskExecutorClient) NotifyCheckpointAborted(ctx context.Context, m *rpcpb.NotifyCheckpointAborted) *rpc.Future[*rpcpb.Ack] {
	return call[*rpcpb.Ack](ctx, x.c, taskExecutorKind, x.addr, "NotifyCheckpointAborted", "notify_checkpoint_aborted", m)
}

func (x taskExecutorClient) RequestSlot(ctx context.Context, m *rpcpb.RequestSlotRequest) *rpc.Future[*rpcpb.RequestSlotResponse] {
	return call[*rpcpb.RequestSlotResponse](ctx, x.c, taskExecutorKind, x.addr, "RequestSlot", "request_slot", m)
}

func (x taskExecutorClient) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	return call[*rpcpb.Heartbeat](ctx, x.c, taskExecutorKind, x.addr, "Heartbeat", "heartbeat", m)
}

type resourceManagerClient struct {
	c    *Client
	addr string
}

func (x resourceManagerClient) RegisterTaskManager(ctx context.Context, m *rpcpb.RegisterTaskManagerRequest) *rpc.Future[*rpcpb.RegisterTaskManagerResponse] {
	return call[*rpcpb.RegisterTaskManagerResponse](ctx, x.c, resourceManagerKind, x.addr, "RegisterTaskManager", "register_task_manager", m)
}

func (x resourceManagerClient) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	return call[*rpcpb.Heartbeat](ctx, x.c, resourceManagerKind, x.addr, "Heartbeat", "heartbeat", m)
}

func (x resourceManagerClient) DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	return call[*rpcpb.Ack](ctx, x.c, resourceManagerKind, x.addr, "DisconnectTaskManager", "disconnect_task_manager", m)
}
