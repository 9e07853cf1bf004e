package grpcrpc

import (
	"context"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// The gRPC services of a Server: each method hands the call to the
// gateway the call names (see handle).

type jobMasterServer struct {
	rpcpb.UnimplementedJobMasterServiceServer
	s *Server
}

func (x jobMasterServer) UpdateTaskExecutionState(ctx context.Context, m *rpcpb.TaskExecutionState) (*rpcpb.UpdateTaskExecutionStateResponse, error) {
	return handle(ctx, &x.s.jobMasters, m, rpc.JobMasterGateway.UpdateTaskExecutionState)
}

func (x jobMasterServer) AcknowledgeCheckpoint(ctx context.Context, m *rpcpb.AcknowledgeCheckpoint) (*rpcpb.Ack, error) {
	return handle(ctx, &x.s.jobMasters, m, rpc.JobMasterGateway.AcknowledgeCheckpoint)
}

func (x jobMasterServer) DeclineCheckpoint(ctx context.Context, m *rpcpb.DeclineCheckpoint) (*rpcpb.Ack, error) {
	return handle(ctx, &x.s.jobMasters, m, rpc.JobMasterGateway.DeclineCheckpoint)
}

func (x jobMasterServer) EndOfData(ctx context.Context, m *rpcpb.EndOfData) (*rpcpb.Ack, error) {
	return handle(ctx, &x.s.jobMasters, m, rpc.JobMasterGateway.EndOfData)
}

func (x jobMasterServer) RequestSplit(ctx context.Context, m *rpcpb.SplitRequest) (*rpcpb.SplitAssignment, error) {
	return handle(ctx, &x.s.jobMasters, m, rpc.JobMasterGateway.RequestSplit)
}

func (x jobMasterServer) OfferSlots(ctx context.Context, m *rpcpb.OfferSlotsRequest) (*rpcpb.OfferSlotsResponse, error) {
	return handle(ctx, &x.s.jobMasters, m, rpc.JobMasterGateway.OfferSlots)
}

func (x jobMasterServer) DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) (*rpcpb.Ack, error) {
	return handle(ctx, &x.s.jobMasters, m, rpc.JobMasterGateway.DisconnectTaskManager)
}

type taskExecutorServer struct {
	rpcpb.UnimplementedTaskExecutorServiceServer
	s *Server
}

func (x taskExecutorServer) SubmitTask(ctx context.Context, m *rpcpb.TaskDeploymentDescriptor) (*rpcpb.SubmitTaskResponse, error) {
	return handle(ctx, &x.s.taskExecutors, m, rpc.TaskExecutorGateway.SubmitTask)
}

func (x taskExecutorServer) CancelTask(ctx context.Context, m *rpcpb.CancelTaskRequest) (*rpcpb.CancelTaskResponse, error) {
	return handle(ctx, &x.s.taskExecutors, m, rpc.TaskExecutorGateway.CancelTask)
}

func (x taskExecutorServer) TriggerCheckpoint(ctx context.Context, m *rpcpb.TriggerCheckpointRequest) (*rpcpb.TriggerCheckpointResponse, error) {
	return handle(ctx, &x.s.taskExecutors, m, rpc.TaskExecutorGateway.TriggerCheckpoint)
}

func (x taskExecutorServer) NotifyCheckpointComplete(ctx context.Context, m *rpcpb.NotifyCheckpointComplete) (*rpcpb.Ack, error) {
	return handle(ctx, &x.s.taskExecutors, m, rpc.TaskExecutorGateway.NotifyCheckpointComplete)
}

func (x taskExecutorServer) NotifyCheckpointAborted(ctx context.Context, m *rpcpb.NotifyCheckpointAborted) (*rpcpb.Ack, error) {
	return handle(ctx, &x.s.taskExecutors, m, rpc.TaskExecutorGateway.NotifyCheckpointAborted)
}

func (x taskExecutorServer) RequestSlot(ctx context.Context, m *rpcpb.RequestSlotRequest) (*rpcpb.RequestSlotResponse, error) {
	return handle(ctx, &x.s.taskExecutors, m, rpc.TaskExecutorGateway.RequestSlot)
}

func (x taskExecutorServer) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) (*rpcpb.Heartbeat, error) {
	return handle(ctx, &x.s.taskExecutors, m, rpc.TaskExecutorGateway.Heartbeat)
}

type resourceManagerServer struct {
	rpcpb.UnimplementedResourceManagerServiceServer
	s *Server
}

func (x resourceManagerServer) RegisterTaskManager(ctx context.Context, m *rpcpb.RegisterTaskManagerRequest) (*rpcpb.RegisterTaskManagerResponse, error) {
	return handle(ctx, &x.s.resourceManager, m, rpc.ResourceManagerGateway.RegisterTaskManager)
}

func (x resourceManagerServer) Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) (*rpcpb.Heartbeat, error) {
	return handle(ctx, &x.s.resourceManager, m, rpc.ResourceManagerGateway.Heartbeat)
}

func (x resourceManagerServer) DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) (*rpcpb.Ack, error) {
	return handle(ctx, &x.s.resourceManager, m, rpc.ResourceManagerGateway.DisconnectTaskManager)
}
