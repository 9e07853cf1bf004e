package rpc_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// echoTE answers deployments and updates at once.
type echoTE struct{ rpc.TaskExecutorGateway }

func (echoTE) SubmitTask(context.Context, *rpcpb.TaskDeploymentDescriptor) *rpc.Future[*rpcpb.SubmitTaskResponse] {
	return rpc.Completed(&rpcpb.SubmitTaskResponse{}, nil)
}

// BenchmarkLocalCall is the cost of one control call (a deployment of a
// task with two inputs and two outputs, restored from a checkpoint) through Local, with and without
// encoding: what encoding adds per control message. Data buffers never go
// through it.
func BenchmarkLocalCall(b *testing.B) {
	d := &rpcpb.TaskDeploymentDescriptor{
		Task: rpc.TaskKey("nexmark-q5", 1, graph.SubtaskID{Vertex: 2, Subtask: 1}), Slot: &rpcpb.SlotId{TaskManagerId: "tm-0", Index: 1},
		Function: &rpcpb.FunctionSpec{Source: &rpcpb.FunctionSpec_Embedded{Embedded: &rpcpb.EmbeddedGraph{JobId: "nexmark-q5"}}, GraphFingerprint: "0123456789abcdef"},
		Channels: &rpcpb.ChannelSizing{Credit: 2, Backlog: 8}, JobMasterAddress: "jobmaster/nexmark-q5",
		Inputs: []*rpcpb.InputGateDescriptor{{Edge: 1, ProducerVertex: 1, ProducerSubtasks: []int32{0, 1}}, {Edge: 2, ProducerVertex: 0, ProducerSubtasks: []int32{0, 1}}},
		Outputs: []*rpcpb.ResultPartitionDescriptor{{Edge: 3, ConsumerVertex: 3, Subpartitions: 2, Type: rpcpb.PartitionType_PARTITION_TYPE_PIPELINED},
			{Edge: 4, ConsumerVertex: 4, Subpartitions: 2, Type: rpcpb.PartitionType_PARTITION_TYPE_PIPELINED}},
		Checkpointing: &rpcpb.CheckpointingConfig{Enabled: true}, Restore: rpc.TaskRestore(restoreHandles()),
	}
	for _, encode := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "encoded"}[encode], func(b *testing.B) {
			l := rpc.NewLocalEncoding(encode)
			stop, err := l.ServeTaskExecutor("tm-0", echoTE{})
			if err != nil {
				b.Fatal(err)
			}
			defer stop()
			te := l.TaskExecutor("tm-0")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := te.SubmitTask(ctx, d).Wait(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// restoreHandles are the handles a restored window subtask of parallelism
// 2 (of 128 key groups) reads after a rescale from 4: two old subtasks'
// keyed state with their key-group offsets, and its source's split list.
func restoreHandles() *storage.TaskRestore {
	keyed := func(start int) storage.KeyedStateHandle {
		h := storage.KeyedStateHandle{KeyGroupStart: start, KeyGroupEnd: start + 31,
			Stream: storage.StreamHandle{Path: fmt.Sprintf("v2-o0-s%d-keyed-3f2a", start/32), Size: 1 << 20, CRC: 7}}
		for kg := range 32 {
			h.Offsets = append(h.Offsets, int64(kg)<<15)
		}
		return h
	}
	return &storage.TaskRestore{CheckpointID: 7, Location: "/var/weir/checkpoints/nexmark-q5/chk-7", Reusable: true,
		Operators: []storage.OperatorRestore{{UID: "window", KeyGroupStart: 64, KeyGroupEnd: 127, Keyed: []storage.KeyedStateHandle{keyed(64), keyed(96)}}}}
}
