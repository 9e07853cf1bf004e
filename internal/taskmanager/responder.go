package taskmanager

import (
	"context"
	"log/slog"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// gatewayResponder is the CheckpointResponder of a subtask deployed
// through the Gateway: its acknowledgements (with the handles of what it
// wrote), declines and end of data go to the JobMaster that deployed it
// as messages through that JobMaster's gateway. A call returns once the
// message is sent; the TaskManager reports the subtask's end after its
// writes returned, and the transport delivers one sender's calls in their
// order, so the JobMaster has every acknowledgement before the end.
type gatewayResponder struct {
	jm   rpc.JobMasterGateway
	task *rpcpb.TaskKey
	log  *slog.Logger
}

var _ CheckpointResponder = (*gatewayResponder)(nil)

func (r *gatewayResponder) Acknowledge(id int64, st storage.TaskState) {
	m := &rpcpb.AcknowledgeCheckpoint{Task: r.task, CheckpointId: id, State: rpc.StateHandles(st)}
	r.jm.AcknowledgeCheckpoint(context.Background(), m).OnComplete(func(_ *rpcpb.Ack, err error) {
		if err != nil {
			// The JobMaster is gone: its end discards what it did not
			// commit.
			r.log.Debug("acknowledge a checkpoint", "id", id, "location", st.Location, "err", err)
		}
	})
}

func (r *gatewayResponder) Decline(id int64, reason error, partial storage.TaskState) {
	m := &rpcpb.DeclineCheckpoint{Task: r.task, CheckpointId: id, Reason: rpc.EncodeError(reason), Partial: rpc.StateHandles(partial)}
	r.jm.DeclineCheckpoint(context.Background(), m).OnComplete(func(_ *rpcpb.Ack, err error) {
		if err != nil {
			rpc.TakeLocal(m.GetReason().GetEmbeddedRef()) // not delivered: nobody decodes it
			r.log.Debug("decline a checkpoint", "id", id, "reason", reason, "err", err)
		}
	})
}

func (r *gatewayResponder) EndOfData() {
	r.jm.EndOfData(context.Background(), &rpcpb.EndOfData{Task: r.task}).OnComplete(func(_ *rpcpb.Ack, err error) {
		if err != nil {
			r.log.Debug("report the end of data", "err", err)
		}
	})
}
