package minicluster

import (
	"context"
	"errors"

	"github.com/weir-engine/weir/internal/resourcemanager"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// ResourceManagerName is where the cluster serves its ResourceManager's
// gateway on its transport (an rpc.Local address, or the endpoint's name
// on a JobManager's RPC port).
const ResourceManagerName = "resourcemanager"

// resourceManagerAddress is ResourceManagerName.
const resourceManagerAddress = ResourceManagerName

// rmGateway is the ResourceManager's rpc.ResourceManagerGateway: every
// message becomes a request of the ResourceManager loop, answered once the
// loop handled it (and its decisions reached the JobMasters).
type rmGateway struct{ l *rmLoop }

// RegisterTaskManager registers a TaskManager and its slots; a refused
// registration is answered with the reason.
func (g rmGateway) RegisterTaskManager(_ context.Context, m *rpcpb.RegisterTaskManagerRequest) *rpc.Future[*rpcpb.RegisterTaskManagerResponse] {
	address := m.GetAddress()
	if address == "" {
		address = m.GetTaskManagerId()
	}
	ev := resourcemanager.TaskManagerRegistered{ID: m.GetTaskManagerId(), Slots: int(m.GetSlots()), Network: rpc.FromCapacity(m.GetNetwork())}
	err := g.l.call(rmRequest{ev: ev, tm: address, data: m.GetDataAddress()})
	if err == nil && len(m.GetClusterPartitions()) > 0 {
		err = g.l.call(rmRequest{ev: resourcemanager.PartitionsReported{TaskManager: ev.ID, Partitions: fromPartitions(m.GetClusterPartitions())}})
	}
	if err != nil {
		if errors.Is(err, ErrClosed) {
			return rpc.Failed[*rpcpb.RegisterTaskManagerResponse](err)
		}
		return rpc.Completed(&rpcpb.RegisterTaskManagerResponse{Reason: err.Error()}, nil)
	}
	return rpc.Completed(&rpcpb.RegisterTaskManagerResponse{Accepted: true, ResourceManagerId: resourceManagerAddress}, nil)
}

// Heartbeat answers a TaskManager's heartbeat (the session cluster in one
// process loses a TaskManager only when it is removed); one that carries
// its cluster partition report updates the table of cluster partitions.
func (g rmGateway) Heartbeat(_ context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	if m.GetReportPartitions() {
		ev := resourcemanager.PartitionsReported{TaskManager: m.GetSenderId(), Partitions: fromPartitions(m.GetClusterPartitions())}
		if err := g.l.call(rmRequest{ev: ev}); err != nil {
			return rpc.Failed[*rpcpb.Heartbeat](err)
		}
	}
	return rpc.Completed(&rpcpb.Heartbeat{SenderId: resourceManagerAddress, Sequence: m.GetSequence()}, nil)
}

// DisconnectTaskManager takes a TaskManager away: the jobs that held its
// slots are told before the answer comes.
func (g rmGateway) DisconnectTaskManager(_ context.Context, m *rpcpb.DisconnectTaskManager) *rpc.Future[*rpcpb.Ack] {
	reason := "disconnected"
	if err := rpc.DecodeError(m.GetCause()); err != nil {
		reason = err.Error()
	}
	if err := g.l.call(rmRequest{ev: resourcemanager.TaskManagerLost{ID: m.GetTaskManagerId(), Reason: reason}}); err != nil {
		return rpc.Failed[*rpcpb.Ack](err)
	}
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

// disconnect is the message that says TaskManager id is gone for reason.
func disconnect(id, reason string) *rpcpb.DisconnectTaskManager {
	return &rpcpb.DisconnectTaskManager{TaskManagerId: id, Cause: rpc.EncodeError(errors.New(reason))}
}
