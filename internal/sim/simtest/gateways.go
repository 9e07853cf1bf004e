package simtest

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/protobuf/proto"
)

// The gateways' methods by name, on the wire.
const (
	mUpdateTaskExecutionState = "JobMaster.UpdateTaskExecutionState"
	mAcknowledgeCheckpoint    = "JobMaster.AcknowledgeCheckpoint"
	mDeclineCheckpoint        = "JobMaster.DeclineCheckpoint"
	mEndOfData                = "JobMaster.EndOfData"
	mRequestSplit             = "JobMaster.RequestSplit"
	mReportWatermark          = "JobMaster.ReportWatermark"
	mOfferSlots               = "JobMaster.OfferSlots"
	mJMDisconnect             = "JobMaster.DisconnectTaskManager"

	mSubmitTask               = "TaskExecutor.SubmitTask"
	mCancelTask               = "TaskExecutor.CancelTask"
	mTriggerCheckpoint        = "TaskExecutor.TriggerCheckpoint"
	mNotifyCheckpointComplete = "TaskExecutor.NotifyCheckpointComplete"
	mNotifyCheckpointAborted  = "TaskExecutor.NotifyCheckpointAborted"
	mRequestSlot              = "TaskExecutor.RequestSlot"
	mTEHeartbeat              = "TaskExecutor.Heartbeat"

	mRegisterTaskManager = "ResourceManager.RegisterTaskManager"
	mRMHeartbeat         = "ResourceManager.Heartbeat"
	mRMDisconnect        = "ResourceManager.DisconnectTaskManager"
)

// ServeJobMaster serves g under addr from this node.
func (e *Endpoint) ServeJobMaster(addr string, g rpc.JobMasterGateway) (func(), error) {
	return e.serveAt(addr, map[string]handler{
		mUpdateTaskExecutionState: method(g, rpc.JobMasterGateway.UpdateTaskExecutionState),
		mAcknowledgeCheckpoint:    method(g, rpc.JobMasterGateway.AcknowledgeCheckpoint),
		mDeclineCheckpoint:        method(g, rpc.JobMasterGateway.DeclineCheckpoint),
		mEndOfData:                method(g, rpc.JobMasterGateway.EndOfData),
		mRequestSplit:             method(g, rpc.JobMasterGateway.RequestSplit),
		mReportWatermark:          method(g, rpc.JobMasterGateway.ReportWatermark),
		mOfferSlots:               method(g, rpc.JobMasterGateway.OfferSlots),
		mJMDisconnect:             method(g, rpc.JobMasterGateway.DisconnectTaskManager),
	})
}

// ServeTaskExecutor serves g under addr from this node.
func (e *Endpoint) ServeTaskExecutor(addr string, g rpc.TaskExecutorGateway) (func(), error) {
	return e.serveAt(addr, map[string]handler{
		mSubmitTask:               method(g, rpc.TaskExecutorGateway.SubmitTask),
		mCancelTask:               method(g, rpc.TaskExecutorGateway.CancelTask),
		mTriggerCheckpoint:        method(g, rpc.TaskExecutorGateway.TriggerCheckpoint),
		mNotifyCheckpointComplete: method(g, rpc.TaskExecutorGateway.NotifyCheckpointComplete),
		mNotifyCheckpointAborted:  method(g, rpc.TaskExecutorGateway.NotifyCheckpointAborted),
		mRequestSlot:              method(g, rpc.TaskExecutorGateway.RequestSlot),
		mTEHeartbeat:              method(g, rpc.TaskExecutorGateway.Heartbeat),
	})
}

// ServeResourceManager serves g under addr from this node.
func (e *Endpoint) ServeResourceManager(addr string, g rpc.ResourceManagerGateway) (func(), error) {
	return e.serveAt(addr, map[string]handler{
		mRegisterTaskManager: method(g, rpc.ResourceManagerGateway.RegisterTaskManager),
		mRMHeartbeat:         method(g, rpc.ResourceManagerGateway.Heartbeat),
		mRMDisconnect:        method(g, rpc.ResourceManagerGateway.DisconnectTaskManager),
	})
}

// JobMaster returns a client of the JobMaster served under addr.
func (e *Endpoint) JobMaster(addr string) rpc.JobMasterGateway { return jobMasterClient{e, addr} }

// TaskExecutor returns a client of the TaskManager served under addr.
func (e *Endpoint) TaskExecutor(addr string) rpc.TaskExecutorGateway {
	return taskExecutorClient{e, addr}
}

// ResourceManager returns a client of the ResourceManager served under
// addr.
func (e *Endpoint) ResourceManager(addr string) rpc.ResourceManagerGateway {
	return resourceManagerClient{e, addr}
}

type jobMasterClient struct {
	e    *Endpoint
	addr string
}

func (c jobMasterClient) UpdateTaskExecutionState(_ context.Context, m *rpcpb.TaskExecutionState) *rpc.Future[*rpcpb.UpdateTaskExecutionStateResponse] {
	return invoke[*rpcpb.UpdateTaskExecutionStateResponse](c.e, c.addr, mUpdateTaskExecutionState, m)
}

func (c jobMasterClient) AcknowledgeCheckpoint(_ context.Context, m *rpcpb.AcknowledgeCheckpoint) *rpc.Future[*rpcpb.Ack] {
	return invoke[*rpcpb.Ack](c.e, c.addr, mAcknowledgeCheckpoint, m)
}

func (c jobMasterClient) DeclineCheckpoint(_ context.Context, m *rpcpb.DeclineCheckpoint) *rpc.Future[*rpcpb.Ack] {
	return invoke[*rpcpb.Ack](c.e, c.addr, mDeclineCheckpoint, m)
}

func (c jobMasterClient) EndOfData(_ context.Context, m *rpcpb.EndOfData) *rpc.Future[*rpcpb.Ack] {
	return invoke[*rpcpb.Ack](c.e, c.addr, mEndOfData, m)
}

func (c jobMasterClient) RequestSplit(_ context.Context, m *rpcpb.SplitRequest) *rpc.Future[*rpcpb.SplitAssignment] {
	return invoke[*rpcpb.SplitAssignment](c.e, c.addr, mRequestSplit, m)
}

func (c jobMasterClient) ReportWatermark(_ context.Context, m *rpcpb.WatermarkReport) *rpc.Future[*rpcpb.WatermarkAlignment] {
	return invoke[*rpcpb.WatermarkAlignment](c.e, c.addr, mReportWatermark, m)
}

func (c jobMasterClient) OfferSlots(_ context.Context, m *rpcpb.OfferSlotsRequest) *rpc.Future[*rpcpb.OfferSlotsResponse] {
	return invoke[*rpcpb.OfferSlotsResponse](c.e, c.addr, mOfferSlots, m)
}

func (c jobMasterClient) DisconnectTaskManager(_ context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	return invoke[*rpcpb.Ack](c.e, c.addr, mJMDisconnect, m)
}

type taskExecutorClient struct {
	e    *Endpoint
	addr string
}

func (c taskExecutorClient) SubmitTask(_ context.Context, m *rpcpb.TaskDeploymentDescriptor) *rpc.Future[*rpcpb.SubmitTaskResponse] {
	return invoke[*rpcpb.SubmitTaskResponse](c.e, c.addr, mSubmitTask, m)
}

func (c taskExecutorClient) CancelTask(_ context.Context, m *rpcpb.CancelTaskRequest) *rpc.Future[*rpcpb.CancelTaskResponse] {
	return invoke[*rpcpb.CancelTaskResponse](c.e, c.addr, mCancelTask, m)
}

func (c taskExecutorClient) TriggerCheckpoint(_ context.Context, m *rpcpb.TriggerCheckpointRequest) *rpc.Future[*rpcpb.TriggerCheckpointResponse] {
	return invoke[*rpcpb.TriggerCheckpointResponse](c.e, c.addr, mTriggerCheckpoint, m)
}

func (c taskExecutorClient) NotifyCheckpointComplete(_ context.Context, m *rpcpb.NotifyCheckpointComplete) *rpc.Future[*rpcpb.Ack] {
	return invoke[*rpcpb.Ack](c.e, c.addr, mNotifyCheckpointComplete, m)
}

func (c taskExecutorClient) NotifyCheckpointAborted(_ context.Context, m *rpcpb.NotifyCheckpointAborted) *rpc.Future[*rpcpb.Ack] {
	return invoke[*rpcpb.Ack](c.e, c.addr, mNotifyCheckpointAborted, m)
}

func (c taskExecutorClient) RequestSlot(_ context.Context, m *rpcpb.RequestSlotRequest) *rpc.Future[*rpcpb.RequestSlotResponse] {
	return invoke[*rpcpb.RequestSlotResponse](c.e, c.addr, mRequestSlot, m)
}

func (c taskExecutorClient) Heartbeat(_ context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	return invoke[*rpcpb.Heartbeat](c.e, c.addr, mTEHeartbeat, m)
}

type resourceManagerClient struct {
	e    *Endpoint
	addr string
}

func (c resourceManagerClient) RegisterTaskManager(_ context.Context, m *rpcpb.RegisterTaskManagerRequest) *rpc.Future[*rpcpb.RegisterTaskManagerResponse] {
	return invoke[*rpcpb.RegisterTaskManagerResponse](c.e, c.addr, mRegisterTaskManager, m)
}

func (c resourceManagerClient) Heartbeat(_ context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	return invoke[*rpcpb.Heartbeat](c.e, c.addr, mRMHeartbeat, m)
}

func (c resourceManagerClient) DisconnectTaskManager(_ context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	return invoke[*rpcpb.Ack](c.e, c.addr, mRMDisconnect, m)
}

// summary describes a request in a trace line: its task and checkpoint,
// the state it reports.
func summary(m proto.Message) string {
	s := ""
	if k, ok := m.(interface{ GetTask() *rpcpb.TaskKey }); ok && k.GetTask() != nil {
		s += taskName(k.GetTask())
	}
	if c, ok := m.(interface{ GetCheckpointId() int64 }); ok && c.GetCheckpointId() != 0 {
		s += fmt.Sprintf(" cp%d", c.GetCheckpointId())
	}
	switch m := m.(type) {
	case *rpcpb.TaskExecutionState:
		s += " " + m.GetState().String()
	case *rpcpb.TriggerCheckpointRequest:
		s += fmt.Sprintf(" cp%d", m.GetBarrier().GetId())
	case *rpcpb.TaskDeploymentDescriptor:
		s += fmt.Sprintf(" restore cp%d", m.GetRestore().GetCheckpointId())
	case *rpcpb.RegisterTaskManagerRequest:
		s += fmt.Sprintf("%s slots %d", m.GetTaskManagerId(), m.GetSlots())
	}
	return s
}

// taskName names a subtask attempt: v0/s1@g2.
func taskName(k *rpcpb.TaskKey) string {
	return fmt.Sprintf("v%d/s%d@g%d", k.GetExecution().GetVertex(), k.GetExecution().GetSubtask(), k.GetGeneration())
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
