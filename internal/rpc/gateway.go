package rpc

import (
	"context"

	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// The gateways are the only way the JobMaster, the TaskManagers and the
// ResourceManager reach each other. Every method takes a message and
// returns at once with a Future of the answer; ctx bounds the call, not the
// callee's work.

// JobMasterGateway is a job's JobMaster, as its TaskManagers reach it.
type JobMasterGateway interface {
	// UpdateTaskExecutionState reports a state change of a subtask, with
	// its counters.
	UpdateTaskExecutionState(ctx context.Context, m *rpcpb.TaskExecutionState) *Future[*rpcpb.UpdateTaskExecutionStateResponse]
	// AcknowledgeCheckpoint reports a subtask's snapshot by its handles.
	AcknowledgeCheckpoint(ctx context.Context, m *rpcpb.AcknowledgeCheckpoint) *Future[*rpcpb.Ack]
	// DeclineCheckpoint reports a snapshot a subtask could not take.
	DeclineCheckpoint(ctx context.Context, m *rpcpb.DeclineCheckpoint) *Future[*rpcpb.Ack]
	// EndOfData reports that a subtask's inputs ended.
	EndOfData(ctx context.Context, m *rpcpb.EndOfData) *Future[*rpcpb.Ack]
	// RequestSplit asks a source operator's split enumerator for a split.
	RequestSplit(ctx context.Context, m *rpcpb.SplitRequest) *Future[*rpcpb.SplitAssignment]
	// ReportWatermark reports a source subtask's watermark for watermark
	// alignment; the answer is the greatest watermark it may run to.
	ReportWatermark(ctx context.Context, m *rpcpb.WatermarkReport) *Future[*rpcpb.WatermarkAlignment]
	// OfferSlots offers a TaskManager's slots to the job.
	OfferSlots(ctx context.Context, m *rpcpb.OfferSlotsRequest) *Future[*rpcpb.OfferSlotsResponse]
	// DisconnectTaskManager tells the JobMaster a TaskManager is gone.
	DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) *Future[*rpcpb.Ack]
}

// TaskExecutorGateway is a TaskManager, as JobMasters and the
// ResourceManager reach it.
type TaskExecutorGateway interface {
	// SubmitTask deploys a subtask; the answer carries an error when the
	// TaskManager could not start it. Its state changes come through the
	// JobMasterGateway named in the descriptor.
	SubmitTask(ctx context.Context, m *rpcpb.TaskDeploymentDescriptor) *Future[*rpcpb.SubmitTaskResponse]
	// CancelTask cancels a subtask attempt; a no-op when it already ended.
	CancelTask(ctx context.Context, m *rpcpb.CancelTaskRequest) *Future[*rpcpb.CancelTaskResponse]
	// TriggerCheckpoint starts a checkpoint on a (source) subtask.
	TriggerCheckpoint(ctx context.Context, m *rpcpb.TriggerCheckpointRequest) *Future[*rpcpb.TriggerCheckpointResponse]
	// NotifyCheckpointComplete and NotifyCheckpointAborted tell a subtask
	// how a checkpoint ended.
	NotifyCheckpointComplete(ctx context.Context, m *rpcpb.NotifyCheckpointComplete) *Future[*rpcpb.Ack]
	NotifyCheckpointAborted(ctx context.Context, m *rpcpb.NotifyCheckpointAborted) *Future[*rpcpb.Ack]
	// RequestSlot allocates a slot for a job (the ResourceManager's call).
	RequestSlot(ctx context.Context, m *rpcpb.RequestSlotRequest) *Future[*rpcpb.RequestSlotResponse]
	// Heartbeat probes the TaskManager; the answer carries its slot report.
	Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *Future[*rpcpb.Heartbeat]
}

// ResourceManagerGateway is the cluster's ResourceManager, as TaskManagers
// reach it.
type ResourceManagerGateway interface {
	// RegisterTaskManager registers a TaskManager and its slots.
	RegisterTaskManager(ctx context.Context, m *rpcpb.RegisterTaskManagerRequest) *Future[*rpcpb.RegisterTaskManagerResponse]
	// Heartbeat carries a TaskManager's slot report.
	Heartbeat(ctx context.Context, m *rpcpb.Heartbeat) *Future[*rpcpb.Heartbeat]
	// DisconnectTaskManager unregisters a TaskManager.
	DisconnectTaskManager(ctx context.Context, m *rpcpb.DisconnectTaskManager) *Future[*rpcpb.Ack]
}
