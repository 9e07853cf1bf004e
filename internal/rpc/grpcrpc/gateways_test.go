package grpcrpc_test

import (
	"context"
	"sync"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/protobuf/proto"
)

// recorder is the handler side of the tests' gateways: it keeps each
// request it gets by method and answers with the response set for that
// method, or with err. A call of the method named by hold is answered only
// when its context ends, with the context's error. log keeps every request
// in the order the handler got them.
type recorder struct {
	mu      sync.Mutex
	got     map[string]proto.Message
	log     []proto.Message
	answers map[string]proto.Message
	err     error
	hold    string
	held    chan struct{} // closed when a held call arrives
	ended   chan error    // a held call's context error
}

func newRecorder() *recorder {
	return &recorder{got: map[string]proto.Message{}, answers: map[string]proto.Message{}, held: make(chan struct{}), ended: make(chan error, 1)}
}

func (r *recorder) request(method string) proto.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got[method]
}

// answer records req under method and returns the answer set for it.
func answer[Resp proto.Message](ctx context.Context, r *recorder, method string, req proto.Message) *rpc.Future[Resp] {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got[method] = req
	r.log = append(r.log, req)
	if r.hold == method {
		f := rpc.NewFuture[Resp]()
		close(r.held)
		go func() {
			<-ctx.Done()
			r.ended <- ctx.Err()
			var zero Resp
			f.Complete(zero, ctx.Err())
		}()
		return f
	}
	if r.err != nil {
		return rpc.Failed[Resp](r.err)
	}
	resp, _ := r.answers[method].(Resp)
	return rpc.Completed(resp, nil)
}

type jobMaster struct{ r *recorder }

func (g jobMaster) UpdateTaskExecutionState(ctx context.Context, m *rpcpb.TaskExecutionState) *rpc.Future[*rpcpb.UpdateTaskExecutionStateResponse] {
	return answer[*rpcpb.UpdateTaskExecutionStateResponse](ctx, g.r, "JobMaster.UpdateTaskExecutionState", m)
}

func (g jobMaster) AcknowledgeCheckpoint(ctx context.Context, m *rpcpb.AcknowledgeCheckpoint) *rpc.Future[*rpcpb.Ack] {
	return answer[*rpcpb.Ack](ctx, g.r, "JobMaster.AcknowledgeCheckpoint", m)
}

func (g jobMaster) DeclineCheckpoint(ctx context.Context, m *rpcpb.DeclineCheckpoint) *rpc.Future[*rpcpb.Ack] {
	return answer[*rpcpb.Ack](ctx, g.r, "JobMaster.DeclineCheckpoint", m)
}

func (g jobMaster) EndOfData(ctx context.Context, m *rpcpb.EndOfData) *rpc.Future[*rpcpb.Ack] {
	return answer[*rpcpb.Ack](ctx, g.r, "JobMaster.EndOfData", m)
}

func (g jobMaster) ReportWatermark(ctx context.Context, m *rpcpb.WatermarkReport) *rpc.Future[*rpcpb.WatermarkAlignment] {
	return answer[*rpcpb.WatermarkAlignment](ctx, g.r, "JobMaster.ReportWatermark", m)
}

func (g jobMaster) RequestSplit(ctx context.Context, m *rpcpb.SplitRequest) *rpc.Future[*rpcpb.SplitAssignment] {
	return answer[*rpcpb.SplitAssignment](ctx, g.r, "JobMaster.RequestSplit", m)
}

func (g jobMaster) OfferSlots(ctx context.Context, m *rpcpb.OfferSlotsRequest) *rpc.Future[*rpcpb.OfferSlotsResponse] {
	return answer[*rpcpb.OfferSlotsResponse](ctx, g.r, "JobMaster.OfferSlots", m)
}

func (g jobMaster) DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	return answer[*rpcpb.Ack](ctx, g.r, "JobMaster.DisconnectTaskManager", m)
}

type taskExecutor struct{ r *recorder }

func (g taskExecutor) SubmitTask(ctx context.Context, m *rpcpb.TaskDeploymentDescriptor) *rpc.Future[*rpcpb.SubmitTaskResponse] {
	return answer[*rpcpb.SubmitTaskResponse](ctx, g.r, "TaskExecutor.SubmitTask", m)
}

func (g taskExecutor) CancelTask(ctx context.Context, m *rpcpb.CancelTaskRequest) *rpc.Future[*rpcpb.CancelTaskResponse] {
	return answer[*rpcpb.CancelTaskResponse](ctx, g.r, "TaskExecutor.CancelTask", m)
}

func (g taskExecutor) TriggerCheckpoint(ctx context.Context, m *rpcpb.TriggerCheckpointRequest) *rpc.Future[*rpcpb.TriggerCheckpointResponse] {
	return answer[*rpcpb.TriggerCheckpointResponse](ctx, g.r, "TaskExecutor.TriggerCheckpoint", m)
}

func (g taskExecutor) NotifyCheckpointComplete(ctx context.Context, m *rpcpb.NotifyCheckpointComplete) *rpc.Future[*rpcpb.Ack] {
	return answer[*rpcpb.Ack](ctx, g.r, "TaskExecutor.NotifyCheckpointComplete", m)
}

func (g taskExecutor) NotifyCheckpointAborted(ctx context.Context, m *rpcpb.NotifyCheckpointAborted) *rpc.Future[*rpcpb.Ack] {
	return answer[*rpcpb.Ack](ctx, g.r, "TaskExecutor.NotifyCheckpointAborted", m)
}

func (g taskExecutor) RequestSlot(ctx context.Context, m *rpcpb.RequestSlotRequest) *rpc.Future[*rpcpb.RequestSlotResponse] {
	return answer[*rpcpb.RequestSlotResponse](ctx, g.r, "TaskExecutor.RequestSlot", m)
}

func (g taskExecutor) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	return answer[*rpcpb.Heartbeat](ctx, g.r, "TaskExecutor.Heartbeat", m)
}

type resourceManager struct{ r *recorder }

func (g resourceManager) RegisterTaskManager(ctx context.Context, m *rpcpb.RegisterTaskManagerRequest) *rpc.Future[*rpcpb.RegisterTaskManagerResponse] {
	return answer[*rpcpb.RegisterTaskManagerResponse](ctx, g.r, "ResourceManager.RegisterTaskManager", m)
}

func (g resourceManager) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	return answer[*rpcpb.Heartbeat](ctx, g.r, "ResourceManager.Heartbeat", m)
}

func (g resourceManager) DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	return answer[*rpcpb.Ack](ctx, g.r, "ResourceManager.DisconnectTaskManager", m)
}
