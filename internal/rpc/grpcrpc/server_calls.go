package grpcrpc

import (
	"context"
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// serverMethod runs one gateway method on g with a request taken from a
// call envelope.
type serverMethod[G any] func(ctx context.Context, g G, req proto.Message) *rpc.Future[proto.Message]

// method adapts a gateway method (a method expression such as
// rpc.JobMasterGateway.EndOfData) to a serverMethod.
func method[G any, Req, Resp proto.Message](fn func(G, context.Context, Req) *rpc.Future[Resp]) serverMethod[G] {
	return func(ctx context.Context, g G, req proto.Message) *rpc.Future[proto.Message] {
		return rpc.Then(fn(g, ctx, incoming(req.(Req))), func(r Resp) (proto.Message, error) { return outgoing(r), nil })
	}
}

// The methods of each gateway by the name of their envelope field.
var (
	jobMasterMethods = map[protoreflect.Name]serverMethod[rpc.JobMasterGateway]{
		"update_task_execution_state": method(rpc.JobMasterGateway.UpdateTaskExecutionState),
		"acknowledge_checkpoint":      method(rpc.JobMasterGateway.AcknowledgeCheckpoint),
		"decline_checkpoint":          method(rpc.JobMasterGateway.DeclineCheckpoint),
		"end_of_data":                 method(rpc.JobMasterGateway.EndOfData),
		"request_split":               method(rpc.JobMasterGateway.RequestSplit),
		"report_watermark":            method(rpc.JobMasterGateway.ReportWatermark),
		"offer_slots":                 method(rpc.JobMasterGateway.OfferSlots),
		"disconnect_task_manager":     method(rpc.JobMasterGateway.DisconnectTaskManager),
	}
	taskExecutorMethods = map[protoreflect.Name]serverMethod[rpc.TaskExecutorGateway]{
		"submit_task":                method(rpc.TaskExecutorGateway.SubmitTask),
		"cancel_task":                method(rpc.TaskExecutorGateway.CancelTask),
		"trigger_checkpoint":         method(rpc.TaskExecutorGateway.TriggerCheckpoint),
		"notify_checkpoint_complete": method(rpc.TaskExecutorGateway.NotifyCheckpointComplete),
		"notify_checkpoint_aborted":  method(rpc.TaskExecutorGateway.NotifyCheckpointAborted),
		"request_slot":               method(rpc.TaskExecutorGateway.RequestSlot),
		"heartbeat":                  method(rpc.TaskExecutorGateway.Heartbeat),
	}
	resourceManagerMethods = map[protoreflect.Name]serverMethod[rpc.ResourceManagerGateway]{
		"register_task_manager":   method(rpc.ResourceManagerGateway.RegisterTaskManager),
		"heartbeat":               method(rpc.ResourceManagerGateway.Heartbeat),
		"disconnect_task_manager": method(rpc.ResourceManagerGateway.DisconnectTaskManager),
	}
)

// callHeader is the header of a call envelope.
type callHeader interface {
	proto.Message
	GetHeader() *rpcpb.CallHeader
}

// serveCalls serves one caller's stream of calls to the gateways of r: it
// hands every call to its gateway in the order the calls arrive, and sends
// each answer when it is ready. It returns when the stream ends; the calls
// still running then see their context cancelled.
func serveCalls[G, C, R any](stream grpc.BidiStreamingServer[C, R], r *registry[G], methods map[protoreflect.Name]serverMethod[G], newReply func(id uint64) *R) error {
	ctx := stream.Context()
	out := newOutbox[*R]()
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		_ = out.run(stream.Send) // a failed send ends the stream, which Recv sees
	}()
	var running struct {
		sync.Mutex
		calls map[uint64]context.CancelFunc
	}
	running.calls = map[uint64]context.CancelFunc{}
	defer func() {
		running.Lock()
		for _, cancel := range running.calls {
			cancel()
		}
		running.Unlock()
		out.close()
		<-sent
	}()
	fail := func(id uint64, f *rpcpb.CallFailure) {
		reply := newReply(id)
		setField(any(reply).(proto.Message), "failure", f)
		out.push(reply)
	}
	for {
		recv, err := stream.Recv()
		if err != nil {
			return nil
		}
		call := any(recv).(callHeader)
		id, endpoint := call.GetHeader().GetId(), call.GetHeader().GetEndpoint()
		name, req := oneofField(call, "request")
		if name == "cancel" {
			running.Lock()
			if cancel, ok := running.calls[req.(*rpcpb.CallCancel).GetId()]; ok {
				cancel()
			}
			running.Unlock()
			continue
		}
		m, ok := methods[name]
		if !ok {
			fail(id, &rpcpb.CallFailure{Error: &rpcpb.Error{Message: fmt.Sprintf("grpcrpc: %s has no method %q", r.kind, name)}})
			continue
		}
		g, ok := r.lookup(endpoint)
		if !ok {
			fail(id, &rpcpb.CallFailure{Unreachable: true, Error: &rpcpb.Error{Message: fmt.Sprintf("no %s endpoint %q here", r.kind, endpoint)}})
			continue
		}
		cctx, cancel := context.WithCancel(ctx)
		running.Lock()
		running.calls[id] = cancel
		running.Unlock()
		m(cctx, g, req).OnComplete(func(resp proto.Message, err error) {
			running.Lock()
			delete(running.calls, id)
			running.Unlock()
			cancel()
			if err == nil {
				err = encodable(resp)
			}
			if err != nil {
				fail(id, &rpcpb.CallFailure{Error: rpc.EncodeRemoteError(err)})
				return
			}
			reply := newReply(id)
			setField(any(reply).(proto.Message), name, resp)
			out.push(reply)
		})
	}
}

type jobMasterServer struct {
	rpcpb.UnimplementedJobMasterServiceServer
	s *Server
}

func (x jobMasterServer) Calls(stream rpcpb.JobMasterService_CallsServer) error {
	return serveCalls(stream, &x.s.jobMasters, jobMasterMethods, func(id uint64) *rpcpb.JobMasterReply { return &rpcpb.JobMasterReply{Id: id} })
}

type taskExecutorServer struct {
	rpcpb.UnimplementedTaskExecutorServiceServer
	s *Server
}

func (x taskExecutorServer) Calls(stream rpcpb.TaskExecutorService_CallsServer) error {
	return serveCalls(stream, &x.s.taskExecutors, taskExecutorMethods, func(id uint64) *rpcpb.TaskExecutorReply { return &rpcpb.TaskExecutorReply{Id: id} })
}

type resourceManagerServer struct {
	rpcpb.UnimplementedResourceManagerServiceServer
	s *Server
}

func (x resourceManagerServer) Calls(stream rpcpb.ResourceManagerService_CallsServer) error {
	return serveCalls(stream, &x.s.resourceManager, resourceManagerMethods, func(id uint64) *rpcpb.ResourceManagerReply { return &rpcpb.ResourceManagerReply{Id: id} })
}
