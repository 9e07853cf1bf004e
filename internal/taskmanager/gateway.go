package taskmanager

import (
	"context"
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
)

// The TaskManager's side of the boundary: Gateway is its
// rpc.TaskExecutorGateway. It resolves a deployment's function spec to the
// job graph and its TaskRestore to the handles the subtask reads; it
// reports the subtask's state changes, sends its checkpoint
// acknowledgements, declines and end of data (gatewayResponder) and asks
// for splits through the rpc.JobMasterGateway the deployment names.

// JobMasters finds the gateway of the JobMaster at an address.
type JobMasters interface {
	JobMaster(addr string) rpc.JobMasterGateway
}

// Gateway serves a TaskManager over rpc.
type Gateway struct {
	tm         *TaskManager
	functions  *funcspec.Table
	jobMasters JobMasters
}

var _ rpc.TaskExecutorGateway = (*Gateway)(nil)

// NewGateway returns the gateway of tm, which resolves function specs
// with functions and reaches JobMasters through jobMasters.
func NewGateway(tm *TaskManager, functions *funcspec.Table, jobMasters JobMasters) *Gateway {
	return &Gateway{tm: tm, functions: functions, jobMasters: jobMasters}
}

// SubmitTask deploys the subtask d describes.
func (g *Gateway) SubmitTask(_ context.Context, d *rpcpb.TaskDeploymentDescriptor) *rpc.Future[*rpcpb.SubmitTaskResponse] {
	dep, err := g.deployment(d)
	if err == nil {
		err = g.tm.Submit(dep)
	}
	return rpc.Completed(&rpcpb.SubmitTaskResponse{Error: rpc.EncodeError(err)}, nil)
}

// deployment turns a descriptor into a Deployment.
func (g *Gateway) deployment(d *rpcpb.TaskDeploymentDescriptor) (Deployment, error) {
	jobID, gen, id := rpc.FromTaskKey(d.GetTask())
	jg, err := g.functions.Resolve(d.GetFunction())
	if err != nil {
		// The spec resolves to no graph, or to another one than the
		// JobMaster's, at every attempt alike: no restart can fix it.
		return Deployment{}, scheduler.MarkUnrecoverable(fmt.Errorf("taskmanager %s: subtask %v: %w", g.tm.id, id, err))
	}
	jm := g.jobMasters.JobMaster(d.GetJobMasterAddress())
	key := d.GetTask()
	init := Init{
		Checkpointing:     d.GetCheckpointing().GetEnabled(),
		NoFinalCheckpoint: d.GetCheckpointing().GetNoFinalCheckpoint(),
		LastCheckpointID:  d.GetRestore().GetCheckpointId(),
		FinishedOnRestore: d.GetRestore().GetFinishedOnRestore(),
		Restore:           rpc.FromTaskRestore(d.GetRestore()),
		RequestSplit: func(uid string, _ int, reply func([]byte, bool)) {
			jm.RequestSplit(context.Background(), &rpcpb.SplitRequest{Task: key, OperatorUid: uid}).OnComplete(
				func(a *rpcpb.SplitAssignment, err error) {
					if err != nil {
						// The JobMaster is gone: the subtask is being
						// cancelled, and no answer would be current.
						g.tm.log.Debug("split request", "task", id, "uid", uid, "err", err)
						return
					}
					reply(a.GetSplit(), !a.GetNoMoreSplits())
				})
		},
	}
	init.ReportWatermark = func(uid string, _ int, r op.AlignmentReport, reply func(int64)) {
		jm.ReportWatermark(context.Background(), &rpcpb.WatermarkReport{Task: key, OperatorUid: uid,
			Watermark: r.Watermark, Idle: r.Idle, Finished: r.Finished}).OnComplete(
			func(a *rpcpb.WatermarkAlignment, err error) {
				if err != nil {
					// The JobMaster is gone: no answer would be current.
					g.tm.log.Debug("watermark report", "task", id, "uid", uid, "err", err)
					return
				}
				reply(a.GetMaxAllowedWatermark())
			})
	}
	if init.Checkpointing {
		init.CheckpointStorage = d.GetCheckpointing().GetStorage()
		init.Checkpoints = &gatewayResponder{jm: jm, task: key, log: g.tm.log.With("task", id)}
	}
	return Deployment{
		JobID: jobID, JobName: d.GetJobName(), Generation: gen, Graph: jg, ID: id, Slot: rpc.FromSlotID(d.GetSlot()), Channels: rpc.FromSizing(d.GetChannels()),
		Init: init, StateBackend: rpc.FromStateBackend(d.GetStateBackend()),
		Report: func(r Report) {
			m := rpc.TaskState(jobID, r.TaskState, r.metricsMessage())
			jm.UpdateTaskExecutionState(context.Background(), m).OnComplete(func(_ *rpcpb.UpdateTaskExecutionStateResponse, err error) {
				if err != nil {
					rpc.TakeLocal(m.GetError().GetEmbeddedRef()) // not delivered: nobody decodes it
					g.tm.log.Debug("report a subtask's state", "task", id, "state", r.State, "err", err)
				}
			})
		},
	}, nil
}

// CancelTask cancels a subtask attempt.
func (g *Gateway) CancelTask(_ context.Context, m *rpcpb.CancelTaskRequest) *rpc.Future[*rpcpb.CancelTaskResponse] {
	g.tm.Cancel(rpc.FromTaskKey(m.GetTask()))
	return rpc.Completed(&rpcpb.CancelTaskResponse{}, nil)
}

// TriggerCheckpoint starts a checkpoint on a subtask; the answer says
// whether it runs.
func (g *Gateway) TriggerCheckpoint(_ context.Context, m *rpcpb.TriggerCheckpointRequest) *rpc.Future[*rpcpb.TriggerCheckpointResponse] {
	job, gen, id := rpc.FromTaskKey(m.GetTask())
	ok := g.tm.TriggerCheckpoint(job, gen, id, rpc.FromBarrier(m.GetBarrier()))
	return rpc.Completed(&rpcpb.TriggerCheckpointResponse{Accepted: ok}, nil)
}

// NotifyCheckpointComplete tells a subtask that a checkpoint completed.
func (g *Gateway) NotifyCheckpointComplete(_ context.Context, m *rpcpb.NotifyCheckpointComplete) *rpc.Future[*rpcpb.Ack] {
	job, gen, id := rpc.FromTaskKey(m.GetTask())
	g.tm.NotifyCheckpoint(job, gen, id, m.GetCheckpointId(), true)
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

// NotifyCheckpointAborted tells a subtask that a checkpoint was aborted.
func (g *Gateway) NotifyCheckpointAborted(_ context.Context, m *rpcpb.NotifyCheckpointAborted) *rpc.Future[*rpcpb.Ack] {
	job, gen, id := rpc.FromTaskKey(m.GetTask())
	g.tm.NotifyCheckpoint(job, gen, id, m.GetCheckpointId(), false)
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

// ErrUnsupported is the answer to the calls of a session cluster that this
// TaskManager does not take yet.
var ErrUnsupported = errors.New("taskmanager: call not supported")

// RequestSlot is refused: slots are fixed when the TaskManager starts.
func (g *Gateway) RequestSlot(context.Context, *rpcpb.RequestSlotRequest) *rpc.Future[*rpcpb.RequestSlotResponse] {
	return rpc.Failed[*rpcpb.RequestSlotResponse](fmt.Errorf("%w: RequestSlot", ErrUnsupported))
}

// Heartbeat answers with the TaskManager's slots.
func (g *Gateway) Heartbeat(_ context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	report := &rpcpb.SlotReport{}
	for _, s := range g.tm.Slots() {
		report.Slots = append(report.Slots, &rpcpb.SlotStatus{Slot: rpc.SlotID(s)})
	}
	return rpc.Completed(&rpcpb.Heartbeat{SenderId: g.tm.id, Sequence: m.GetSequence(), SlotReport: report}, nil)
}
