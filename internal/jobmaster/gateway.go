package jobmaster

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// The JobMaster's side of the boundary. gateway is its
// rpc.JobMasterGateway: each message becomes an event of the loop, and a
// call that needs an answer (a split request) gets it when the loop has
// handled the event. The loop reaches the TaskManagers through their
// rpc.TaskExecutorGateway (Options.RPC) and never waits for an answer: the
// answers it needs come back as events too.

// Address is where the JobMaster's gateway is served (Options.Address).
func (jm *JobMaster) Address() string {
	if jm.opts.Address != "" {
		return jm.opts.Address
	}
	return "jobmaster/" + jm.jobID
}

// Serve serves the JobMaster's gateway before the job starts, so that a
// ResourceManager can offer it slots through the gateway first; Start
// serves it otherwise, and the end of the loop stops serving it. stop
// undoes Serve for a JobMaster that is never started; calling it again is
// a no-op.
func (jm *JobMaster) Serve() (stop func(), err error) {
	if jm.unserve != nil {
		return jm.unserve, nil
	}
	stop, err = jm.serve()
	if err != nil {
		return nil, err
	}
	jm.unserve = sync.OnceFunc(stop)
	return jm.unserve, nil
}

// serve names the job's graph for the TaskManagers to resolve (a
// registered spec, or the graph embedded in the process's table) and
// serves the JobMaster's gateway; stop undoes both.
func (jm *JobMaster) serve() (stop func(), err error) {
	spec, release, err := jm.functionSpec()
	if err != nil {
		return nil, fmt.Errorf("jobmaster: %w", err)
	}
	jm.function, jm.baseFunction = spec, spec
	jm.address = jm.Address()
	unserve, err := jm.opts.RPC.ServeJobMaster(jm.address, &gateway{jm: jm})
	if err != nil {
		release()
		return nil, fmt.Errorf("jobmaster: %w", err)
	}
	return func() { unserve(); release() }, nil
}

// functionSpec is the spec the job's deployments carry: a registered job
// is rebuilt by each TaskManager (release drops what the process's table
// built for it); any other graph is embedded in the table until release.
func (jm *JobMaster) functionSpec() (spec *rpcpb.FunctionSpec, release func(), err error) {
	if r := jm.opts.Registered; r != nil {
		spec = funcspec.Registered(r, jm.graph)
		return spec, func() { jm.opts.Functions.Forget(spec) }, nil
	}
	return jm.opts.Functions.Embed(jm.jobID, jm.graph)
}

// triggerTask sends a checkpoint trigger to a subtask. A subtask that is
// no longer running has finished or failed, and its report is on its way:
// the coordinator learns of it from there (a task that finished after its
// final checkpoint is recorded as finished in the checkpoint and the tasks
// that became roots are triggered again; one that finished before its end
// of data fails the checkpoint at once; a failure aborts it), so a trigger
// that is not taken needs no decline of its own.
func (jm *JobMaster) triggerTask(id graph.SubtaskID, b network.CheckpointBarrier) {
	te := jm.taskExecutorOf(id)
	if te == nil {
		jm.log.Debug("trigger of a subtask that is not placed", "id", b.ID, "task", id)
		return
	}
	te.TriggerCheckpoint(context.Background(), &rpcpb.TriggerCheckpointRequest{Task: jm.taskKey(id), Barrier: rpc.Barrier(b)}).OnComplete(
		func(r *rpcpb.TriggerCheckpointResponse, err error) {
			if err != nil || !r.GetAccepted() {
				jm.log.Debug("trigger of a subtask that is not running", "id", b.ID, "task", id, "err", err)
			}
		})
}

// notifyTask tells a subtask how checkpoint id ended.
func (jm *JobMaster) notifyTask(id graph.SubtaskID, checkpointID int64, complete bool) {
	te := jm.taskExecutorOf(id)
	if te == nil {
		return
	}
	key := jm.taskKey(id)
	if complete {
		te.NotifyCheckpointComplete(context.Background(), &rpcpb.NotifyCheckpointComplete{Task: key, CheckpointId: checkpointID})
	} else {
		te.NotifyCheckpointAborted(context.Background(), &rpcpb.NotifyCheckpointAborted{Task: key, CheckpointId: checkpointID})
	}
}

// gateway is the JobMaster's rpc.JobMasterGateway.
type gateway struct{ jm *JobMaster }

var _ rpc.JobMasterGateway = (*gateway)(nil)

// errOtherJob answers a message about another job's task.
var errOtherJob = errors.New("jobmaster: message for another job")

// ours checks that k names a task of this job.
func (g *gateway) ours(k *rpcpb.TaskKey) error {
	if k.GetJobId() != g.jm.jobID {
		return fmt.Errorf("%w: %q, this is %q", errOtherJob, k.GetJobId(), g.jm.jobID)
	}
	return nil
}

func (g *gateway) UpdateTaskExecutionState(_ context.Context, m *rpcpb.TaskExecutionState) *rpc.Future[*rpcpb.UpdateTaskExecutionStateResponse] {
	_, ts, err := rpc.FromTaskState(m) // decodes the error: always, so its reference is freed
	if err == nil {
		err = g.ours(m.GetTask())
	}
	if err != nil {
		return rpc.Failed[*rpcpb.UpdateTaskExecutionStateResponse](err)
	}
	g.jm.events.Push(taskmanager.ReportOf(ts, m.GetMetrics()))
	return rpc.Completed(&rpcpb.UpdateTaskExecutionStateResponse{}, nil)
}

func (g *gateway) AcknowledgeCheckpoint(_ context.Context, m *rpcpb.AcknowledgeCheckpoint) *rpc.Future[*rpcpb.Ack] {
	if err := g.ours(m.GetTask()); err != nil {
		return rpc.Failed[*rpcpb.Ack](err)
	}
	_, gen, id := rpc.FromTaskKey(m.GetTask())
	g.jm.events.Push(ackEvent{id: m.GetCheckpointId(), task: id, state: rpc.FromStateHandles(m.GetState()), attempt: gen})
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

func (g *gateway) DeclineCheckpoint(_ context.Context, m *rpcpb.DeclineCheckpoint) *rpc.Future[*rpcpb.Ack] {
	reason := rpc.DecodeError(m.GetReason())
	if err := g.ours(m.GetTask()); err != nil {
		return rpc.Failed[*rpcpb.Ack](err)
	}
	_, gen, id := rpc.FromTaskKey(m.GetTask())
	g.jm.events.Push(declineEvent{id: m.GetCheckpointId(), task: id, err: reason, attempt: gen, partial: rpc.FromStateHandles(m.GetPartial())})
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

func (g *gateway) EndOfData(_ context.Context, m *rpcpb.EndOfData) *rpc.Future[*rpcpb.Ack] {
	if err := g.ours(m.GetTask()); err != nil {
		return rpc.Failed[*rpcpb.Ack](err)
	}
	_, gen, id := rpc.FromTaskKey(m.GetTask())
	g.jm.events.Push(endOfDataEvent{task: id, attempt: gen})
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

// RequestSplit queues the request for the loop, which answers it from the
// enumerator. A request of an earlier generation, or for an operator with
// no enumerator, is never answered, as its subtask is gone.
func (g *gateway) RequestSplit(_ context.Context, m *rpcpb.SplitRequest) *rpc.Future[*rpcpb.SplitAssignment] {
	if err := g.ours(m.GetTask()); err != nil {
		return rpc.Failed[*rpcpb.SplitAssignment](err)
	}
	_, gen, id := rpc.FromTaskKey(m.GetTask())
	f := rpc.NewFuture[*rpcpb.SplitAssignment]()
	g.jm.events.Push(splitRequest{uid: m.GetOperatorUid(), subtask: id.Subtask, attempt: gen, reply: func(split []byte, more bool) {
		f.Complete(&rpcpb.SplitAssignment{Task: m.GetTask(), OperatorUid: m.GetOperatorUid(), Split: split, NoMoreSplits: !more}, nil)
	}})
	return f
}

// ReportWatermark queues a source subtask's watermark for the loop, which
// answers with the greatest watermark the subtask may run to. A report of
// an earlier generation is never answered.
func (g *gateway) ReportWatermark(_ context.Context, m *rpcpb.WatermarkReport) *rpc.Future[*rpcpb.WatermarkAlignment] {
	if err := g.ours(m.GetTask()); err != nil {
		return rpc.Failed[*rpcpb.WatermarkAlignment](err)
	}
	_, gen, id := rpc.FromTaskKey(m.GetTask())
	f := rpc.NewFuture[*rpcpb.WatermarkAlignment]()
	g.jm.events.Push(watermarkReport{uid: m.GetOperatorUid(), subtask: id.Subtask, attempt: gen,
		report: op.AlignmentReport{Watermark: m.GetWatermark(), Idle: m.GetIdle(), Finished: m.GetFinished()},
		reply: func(maxAllowed int64) {
			f.Complete(&rpcpb.WatermarkAlignment{MaxAllowedWatermark: maxAllowed}, nil)
		}})
	return f
}

// OfferSlots queues the offer for the loop (see membership.go) and
// accepts every slot of it: the ResourceManager gave them to the job, and
// the job gives back what it does not use when it ends.
func (g *gateway) OfferSlots(_ context.Context, m *rpcpb.OfferSlotsRequest) *rpc.Future[*rpcpb.OfferSlotsResponse] {
	if m.GetJobId() != g.jm.jobID {
		return rpc.Failed[*rpcpb.OfferSlotsResponse](fmt.Errorf("jobmaster %s: an offer for job %q", g.jm.jobID, m.GetJobId()))
	}
	tm, err := fromSlotOffer(m)
	if err != nil {
		return rpc.Failed[*rpcpb.OfferSlotsResponse](err)
	}
	g.jm.RegisterTaskManager(tm)
	return rpc.Completed(&rpcpb.OfferSlotsResponse{Accepted: m.GetOffers()}, nil)
}

// DisconnectTaskManager queues the loss of a TaskManager for the loop.
func (g *gateway) DisconnectTaskManager(_ context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	if m.GetTaskManagerId() == "" {
		return rpc.Failed[*rpcpb.Ack](fmt.Errorf("jobmaster %s: a disconnect without TaskManager", g.jm.jobID))
	}
	reason := "disconnected"
	if err := rpc.DecodeError(m.GetCause()); err != nil {
		reason = err.Error()
	}
	g.jm.DisconnectTaskManager(m.GetTaskManagerId(), reason)
	return rpc.Completed(&rpcpb.Ack{}, nil)
}
