package rpc

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// Conversions between the messages and the runtime's own types, in one
// place so that each end converts the same way.

// TaskKey is the message naming a subtask attempt.
func TaskKey(job string, generation int, id graph.SubtaskID) *rpcpb.TaskKey {
	return &rpcpb.TaskKey{JobId: job, Generation: int32(generation),
		Execution: &rpcpb.ExecutionId{Vertex: int32(id.Vertex), Subtask: int32(id.Subtask)}}
}

// FromTaskKey returns the job, generation and subtask k names.
func FromTaskKey(k *rpcpb.TaskKey) (job string, generation int, id graph.SubtaskID) {
	e := k.GetExecution()
	return k.GetJobId(), int(k.GetGeneration()), graph.SubtaskID{Vertex: int(e.GetVertex()), Subtask: int(e.GetSubtask())}
}

// SlotID is the message of a slot.
func SlotID(s slots.ID) *rpcpb.SlotId {
	return &rpcpb.SlotId{TaskManagerId: s.TaskManager, Index: int32(s.Index)}
}

// FromSlotID returns the slot m names.
func FromSlotID(m *rpcpb.SlotId) slots.ID {
	return slots.ID{TaskManager: m.GetTaskManagerId(), Index: int(m.GetIndex())}
}

// Sizing is the message of a channel sizing.
func Sizing(s network.Sizing) *rpcpb.ChannelSizing {
	return &rpcpb.ChannelSizing{Credit: int32(s.Credit), Backlog: int32(s.Backlog)}
}

// FromSizing returns the sizing m holds.
func FromSizing(m *rpcpb.ChannelSizing) network.Sizing {
	return network.Sizing{Credit: int(m.GetCredit()), Backlog: int(m.GetBacklog())}
}

// StateBackend is the message of a job's state backend (nil for nil: the
// TaskManager's own). LocalDir stays out: it is the TaskManager's.
func StateBackend(b *op.StateBackend) *rpcpb.StateBackendConfig {
	if b == nil {
		return nil
	}
	return &rpcpb.StateBackendConfig{Pebble: b.Pebble, Incremental: b.Incremental}
}

// FromStateBackend returns the state backend m holds (nil for nil), with
// no LocalDir.
func FromStateBackend(m *rpcpb.StateBackendConfig) *op.StateBackend {
	if m == nil {
		return nil
	}
	return &op.StateBackend{Pebble: m.GetPebble(), Incremental: m.GetIncremental()}
}

// Capacity is the message of a TaskManager's network memory.
func Capacity(c network.Capacity) *rpcpb.NetworkCapacity {
	return &rpcpb.NetworkCapacity{Memory: c.Memory, Buffers: int32(c.Buffers), BufferMemory: int32(c.BufferMemory)}
}

// FromCapacity returns the capacity m holds.
func FromCapacity(m *rpcpb.NetworkCapacity) network.Capacity {
	return network.Capacity{Memory: m.GetMemory(), Buffers: int(m.GetBuffers()), BufferMemory: int(m.GetBufferMemory())}
}

// Barrier is the message of a checkpoint barrier.
func Barrier(b network.CheckpointBarrier) *rpcpb.CheckpointBarrier {
	return &rpcpb.CheckpointBarrier{Id: b.ID, TimestampMillis: b.Timestamp, Savepoint: b.Savepoint, Unaligned: b.Unaligned,
		AlignedTimeoutMillis: b.AlignedTimeoutMillis, Drain: b.Drain, Terminate: b.Terminate, Location: b.Location}
}

// FromBarrier returns the barrier m describes.
func FromBarrier(m *rpcpb.CheckpointBarrier) network.CheckpointBarrier {
	return network.CheckpointBarrier{ID: m.GetId(), Timestamp: m.GetTimestampMillis(), Savepoint: m.GetSavepoint(),
		Unaligned: m.GetUnaligned(), AlignedTimeoutMillis: m.GetAlignedTimeoutMillis(), Drain: m.GetDrain(), Terminate: m.GetTerminate(),
		Location: m.GetLocation()}
}

var execStates = map[scheduler.ExecutionState]rpcpb.ExecutionState{
	scheduler.ExecCreated:   rpcpb.ExecutionState_EXECUTION_STATE_CREATED,
	scheduler.ExecDeploying: rpcpb.ExecutionState_EXECUTION_STATE_DEPLOYING,
	scheduler.ExecRunning:   rpcpb.ExecutionState_EXECUTION_STATE_RUNNING,
	scheduler.ExecFinished:  rpcpb.ExecutionState_EXECUTION_STATE_FINISHED,
	scheduler.ExecCanceling: rpcpb.ExecutionState_EXECUTION_STATE_CANCELING,
	scheduler.ExecCanceled:  rpcpb.ExecutionState_EXECUTION_STATE_CANCELED,
	scheduler.ExecFailed:    rpcpb.ExecutionState_EXECUTION_STATE_FAILED,
}

// ExecutionState is the message of an execution state.
func ExecutionState(s scheduler.ExecutionState) rpcpb.ExecutionState { return execStates[s] }

// FromExecutionState returns the state m names, or an error for a state
// this process does not know.
func FromExecutionState(m rpcpb.ExecutionState) (scheduler.ExecutionState, error) {
	for s, pm := range execStates {
		if pm == m {
			return s, nil
		}
	}
	return "", fmt.Errorf("rpc: unknown execution state %v", m)
}

// TaskState is the message of a subtask's state change, with its counters.
// It encodes ts.Err (see EncodeError): the receiver must decode it.
func TaskState(job string, ts scheduler.TaskState, metrics *rpcpb.TaskMetrics) *rpcpb.TaskExecutionState {
	return &rpcpb.TaskExecutionState{Task: TaskKey(job, ts.Generation, ts.ID), State: ExecutionState(ts.State),
		TimeUnixNanos: ts.Now.UnixNano(), Error: EncodeError(ts.Err), Metrics: metrics}
}

// FromTaskState returns the state change m reports and its job.
func FromTaskState(m *rpcpb.TaskExecutionState) (job string, ts scheduler.TaskState, err error) {
	job, gen, id := FromTaskKey(m.GetTask())
	taskErr := DecodeError(m.GetError())
	st, err := FromExecutionState(m.GetState())
	if err != nil {
		return job, ts, err
	}
	return job, scheduler.TaskState{ID: id, Generation: gen, State: st, Now: time.Unix(0, m.GetTimeUnixNanos()), Err: taskErr}, nil
}

// StateHandles is the message of the state a subtask wrote into one
// snapshot: its location and, by operator uid, the handles.
func StateHandles(st storage.TaskState) *rpcpb.TaskStateHandles {
	if st.Location == "" && st.Operators == nil {
		return nil
	}
	out := &rpcpb.TaskStateHandles{Location: st.Location, Operators: make(map[string]*rpcpb.OperatorSubtaskState, len(st.Operators))}
	for uid, o := range st.Operators {
		m := &rpcpb.OperatorSubtaskState{Index: int32(o.Index), Finished: o.Finished}
		for _, h := range o.Keyed {
			m.Keyed = append(m.Keyed, keyedHandle(h))
		}
		for _, l := range o.OperatorLists {
			m.OperatorLists = append(m.OperatorLists, listState(l))
		}
		for _, h := range o.ChannelState {
			m.ChannelState = append(m.ChannelState, streamHandle(h))
		}
		out.Operators[uid] = m
	}
	return out
}

// FromStateHandles returns the subtask state m holds.
func FromStateHandles(m *rpcpb.TaskStateHandles) storage.TaskState {
	if m == nil {
		return storage.TaskState{}
	}
	out := storage.TaskState{Location: m.GetLocation(), Operators: make(map[string]storage.SubtaskState, len(m.GetOperators()))}
	for uid, o := range m.GetOperators() {
		st := storage.SubtaskState{Index: int(o.GetIndex()), Finished: o.GetFinished()}
		for _, h := range o.GetKeyed() {
			st.Keyed = append(st.Keyed, fromKeyedHandle(h))
		}
		for _, l := range o.GetOperatorLists() {
			st.OperatorLists = append(st.OperatorLists, fromListState(l))
		}
		for _, h := range o.GetChannelState() {
			st.ChannelState = append(st.ChannelState, fromStreamHandle(h))
		}
		out.Operators[uid] = st
	}
	return out
}

// TaskRestore is the message of the handles a subtask restores from (nil:
// it starts empty, and the message carries no location). The caller sets
// FinishedOnRestore, which is the deployment's, not the snapshot's.
func TaskRestore(r *storage.TaskRestore) *rpcpb.TaskRestore {
	if r == nil {
		return &rpcpb.TaskRestore{}
	}
	m := &rpcpb.TaskRestore{CheckpointId: r.CheckpointID, Location: r.Location, Reusable: r.Reusable}
	for _, o := range r.Operators {
		om := &rpcpb.OperatorRestore{Uid: o.UID, KeyGroupStart: int32(o.KeyGroupStart), KeyGroupEnd: int32(o.KeyGroupEnd)}
		for _, h := range o.Keyed {
			om.Keyed = append(om.Keyed, keyedHandle(h))
		}
		for _, l := range o.Lists {
			om.Lists = append(om.Lists, listState(l))
		}
		m.Operators = append(m.Operators, om)
	}
	for _, h := range r.ChannelState {
		m.ChannelState = append(m.ChannelState, streamHandle(h))
	}
	return m
}

// FromTaskRestore returns the handles m carries, or nil when it names no
// snapshot (the subtask starts empty).
func FromTaskRestore(m *rpcpb.TaskRestore) *storage.TaskRestore {
	if m.GetLocation() == "" {
		return nil
	}
	r := &storage.TaskRestore{CheckpointID: m.GetCheckpointId(), Location: m.GetLocation(), Reusable: m.GetReusable()}
	for _, om := range m.GetOperators() {
		o := storage.OperatorRestore{UID: om.GetUid(), KeyGroupStart: int(om.GetKeyGroupStart()), KeyGroupEnd: int(om.GetKeyGroupEnd())}
		for _, h := range om.GetKeyed() {
			o.Keyed = append(o.Keyed, fromKeyedHandle(h))
		}
		for _, l := range om.GetLists() {
			o.Lists = append(o.Lists, fromListState(l))
		}
		r.Operators = append(r.Operators, o)
	}
	for _, h := range m.GetChannelState() {
		r.ChannelState = append(r.ChannelState, fromStreamHandle(h))
	}
	return r
}

func listState(l storage.OperatorListState) *rpcpb.OperatorListState {
	return &rpcpb.OperatorListState{Name: l.Name, Mode: rpcpb.ListMode(l.Mode), Entries: l.Entries}
}

func fromListState(m *rpcpb.OperatorListState) storage.OperatorListState {
	return storage.OperatorListState{Name: m.GetName(), Mode: storage.Mode(m.GetMode()), Entries: m.GetEntries()}
}

func keyedHandle(h storage.KeyedStateHandle) *rpcpb.KeyedStateHandle {
	m := &rpcpb.KeyedStateHandle{KeyGroupStart: int32(h.KeyGroupStart), KeyGroupEnd: int32(h.KeyGroupEnd), Offsets: h.Offsets, Stream: streamHandle(h.Stream)}
	for _, f := range h.Shared {
		m.Shared = append(m.Shared, &rpcpb.SharedFile{Key: f.Key, Path: f.Path, Size: f.Size, Crc: f.CRC, HasCrc: f.HasCRC})
	}
	return m
}

func fromKeyedHandle(m *rpcpb.KeyedStateHandle) storage.KeyedStateHandle {
	h := storage.KeyedStateHandle{KeyGroupStart: int(m.GetKeyGroupStart()), KeyGroupEnd: int(m.GetKeyGroupEnd()), Offsets: m.GetOffsets(), Stream: fromStreamHandle(m.GetStream())}
	for _, f := range m.GetShared() {
		h.Shared = append(h.Shared, storage.SharedFile{Key: f.GetKey(), Path: f.GetPath(), Size: f.GetSize(), CRC: f.GetCrc(), HasCRC: f.GetHasCrc()})
	}
	return h
}

func streamHandle(h storage.StreamHandle) *rpcpb.StreamHandle {
	return &rpcpb.StreamHandle{Path: h.Path, Size: h.Size, Inline: h.Inline, Crc: h.CRC}
}

func fromStreamHandle(m *rpcpb.StreamHandle) storage.StreamHandle {
	return storage.StreamHandle{Path: m.GetPath(), Size: m.GetSize(), Inline: m.GetInline(), CRC: m.GetCrc()}
}
