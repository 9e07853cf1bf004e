package jobmaster

import (
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler/slots"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// descriptor is the deployment of subtask id of generation gen into slot,
// starting from init. The task's operators are named by the job's function
// spec, its inputs and outputs by the job edges of its vertex; the state it
// restores by handles the task reads itself (see rpc.TaskRestore).
func (jm *JobMaster) descriptor(gen int, id graph.SubtaskID, slot slots.ID, init taskmanager.Init) *rpcpb.TaskDeploymentDescriptor {
	v := jm.graph.Vertices[id.Vertex]
	d := &rpcpb.TaskDeploymentDescriptor{
		Task: rpc.TaskKey(jm.jobID, gen, id), Slot: rpc.SlotID(slot), Function: jm.function,
		Channels:         rpc.Sizing(jm.channels),
		JobMasterAddress: jm.address,
		Restore:          rpc.TaskRestore(init.Restore),
		StateBackend:     rpc.StateBackend(jm.opts.StateBackend),
		JobName:          jm.opts.JobName,
	}
	d.Restore.CheckpointId, d.Restore.FinishedOnRestore = init.LastCheckpointID, init.FinishedOnRestore
	for _, e := range v.Inputs {
		g := &rpcpb.InputGateDescriptor{Edge: int32(e.ID), ProducerVertex: int32(e.Source.ID)}
		for _, p := range graph.ProducersOf(e.Pattern, e.Source.Parallelism, v.Parallelism, id.Subtask) {
			g.ProducerSubtasks = append(g.ProducerSubtasks, int32(p))
			g.ProducerDataAddresses = append(g.ProducerDataAddresses, jm.dataAddress(graph.SubtaskID{Vertex: e.Source.ID, Subtask: p}))
		}
		d.Inputs = append(d.Inputs, g)
	}
	for _, e := range v.Outputs {
		d.Outputs = append(d.Outputs, &rpcpb.ResultPartitionDescriptor{Edge: int32(e.ID), ConsumerVertex: int32(e.Target.ID),
			Subpartitions: int32(graph.NumConsumers(e.Pattern, v.Parallelism, e.Target.Parallelism, id.Subtask)), Type: rpcpb.PartitionType_PARTITION_TYPE_PIPELINED})
	}
	if jm.cp != nil {
		d.Checkpointing = &rpcpb.CheckpointingConfig{Enabled: true, NoFinalCheckpoint: jm.cp.opts.NoCheckpointsAfterTasksFinish,
			Storage: jm.cp.opts.Storage.Root()}
	}
	return d
}

// dataAddress is where the TaskManager that runs subtask id serves its
// result partitions ("" in process, or when it is not placed).
func (jm *JobMaster) dataAddress(id graph.SubtaskID) string {
	tm, ok := jm.placed[id]
	if !ok {
		return ""
	}
	return jm.tms[tm].DataAddress
}
