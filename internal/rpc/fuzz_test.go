package rpc_test

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
)

// FuzzInbound feeds arbitrary bytes to the decoding of what a process
// receives from another: the protobuf messages of the calls, then the
// conversions to the runtime's types. Bytes that are not a message fail
// to unmarshal; a message, however strange, converts without a panic.
func FuzzInbound(f *testing.F) {
	for _, m := range []proto.Message{
		rpc.TaskState("job", fuzzTaskState(), nil),
		&rpcpb.TaskDeploymentDescriptor{Task: rpc.TaskKey("job", 3, fuzzTaskState().ID)},
		rpc.EncodeRemoteError(errFuzz{}),
		rpc.Barrier(fuzzBarrier()),
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		var ts rpcpb.TaskExecutionState
		if proto.Unmarshal(b, &ts) == nil {
			_, _, _ = rpc.FromTaskState(&ts)
		}
		var d rpcpb.TaskDeploymentDescriptor
		if proto.Unmarshal(b, &d) == nil {
			rpc.FromTaskKey(d.GetTask())
			rpc.FromTaskRestore(d.GetRestore())
		}
		var e rpcpb.Error
		if proto.Unmarshal(b, &e) == nil {
			e.EmbeddedRef = 0 // zeroed on receipt, as grpcrpc does
			if err := rpc.DecodeError(&e); err != nil {
				_ = err.Error()
			}
		}
		var br rpcpb.CheckpointBarrier
		if proto.Unmarshal(b, &br) == nil {
			rpc.FromBarrier(&br)
		}
		var h rpcpb.TaskStateHandles
		if proto.Unmarshal(b, &h) == nil {
			rpc.FromStateHandles(&h)
		}
		var r rpcpb.RegisterTaskManagerRequest
		if proto.Unmarshal(b, &r) == nil {
			rpc.FromCapacity(r.GetNetwork())
		}
	})
}

type errFuzz struct{}

func (errFuzz) Error() string { return "fuzz" }

func fuzzTaskState() scheduler.TaskState {
	return scheduler.TaskState{ID: graph.SubtaskID{Vertex: 2, Subtask: 5}, Generation: 3, State: scheduler.ExecRunning, Now: time.Unix(1, 2)}
}

func fuzzBarrier() network.CheckpointBarrier { return network.CheckpointBarrier{ID: 7} }
