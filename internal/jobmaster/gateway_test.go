package jobmaster

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/queue"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// Each message the JobMaster's gateway takes becomes the event its loop
// handles, with the message's content converted back; a message about
// another job is refused and queues nothing.
func TestGatewayTurnsMessagesIntoEvents(t *testing.T) {
	jm := &JobMaster{jobID: "job", events: queue.New[any]()}
	g := &gateway{jm: jm}
	ctx := context.Background()
	key := rpc.TaskKey("job", 2, graph.SubtaskID{Vertex: 1, Subtask: 3})
	task := graph.SubtaskID{Vertex: 1, Subtask: 3}
	state := storage.TaskState{Location: "/ckpt/job/chk-9", Operators: map[string]storage.SubtaskState{
		"uid": {Index: 3, Keyed: []storage.KeyedStateHandle{{KeyGroupEnd: 7, Stream: storage.StreamHandle{Path: "f", Size: 9}}}}}}
	boom := errors.New("boom")
	now := time.Unix(1700000000, 0)
	cases := []struct {
		name string
		call func() error
		want any
	}{
		{"state update", func() error {
			m := rpc.TaskState("job", scheduler.TaskState{ID: graph.SubtaskID{Vertex: 1, Subtask: 3}, Generation: 2, State: scheduler.ExecFailed, Now: now, Err: boom},
				&rpcpb.TaskMetrics{RecordsIn: 5, RecordsOut: 6, LastSnapshot: 4})
			_, err := g.UpdateTaskExecutionState(ctx, m).Wait(ctx)
			return err
		}, taskmanager.Report{TaskState: scheduler.TaskState{ID: graph.SubtaskID{Vertex: 1, Subtask: 3}, Generation: 2, State: scheduler.ExecFailed, Now: now, Err: boom},
			RecordsIn: 5, RecordsOut: 6, LastSnapshot: 4}},
		{"acknowledge", func() error {
			_, err := g.AcknowledgeCheckpoint(ctx, &rpcpb.AcknowledgeCheckpoint{Task: key, CheckpointId: 9, State: rpc.StateHandles(state)}).Wait(ctx)
			return err
		}, ackEvent{id: 9, task: task, state: state, attempt: 2}},
		{"decline", func() error {
			_, err := g.DeclineCheckpoint(ctx, &rpcpb.DeclineCheckpoint{Task: key, CheckpointId: 9, Reason: rpc.EncodeError(boom)}).Wait(ctx)
			return err
		}, declineEvent{id: 9, task: task, err: boom, attempt: 2}},
		{"decline after a partial write", func() error {
			_, err := g.DeclineCheckpoint(ctx, &rpcpb.DeclineCheckpoint{Task: key, CheckpointId: 9, Reason: rpc.EncodeError(boom), Partial: rpc.StateHandles(state)}).Wait(ctx)
			return err
		}, declineEvent{id: 9, task: task, err: boom, attempt: 2, partial: state}},
		{"end of data", func() error {
			_, err := g.EndOfData(ctx, &rpcpb.EndOfData{Task: key}).Wait(ctx)
			return err
		}, endOfDataEvent{task: task, attempt: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); err != nil {
				t.Fatal(err)
			}
			evs := jm.events.PopAll()
			if len(evs) != 1 || !reflect.DeepEqual(evs[0], c.want) {
				t.Fatalf("events %+v; want %+v", evs, c.want)
			}
		})
	}

	// A split request is answered when the loop replies.
	f := g.RequestSplit(ctx, &rpcpb.SplitRequest{Task: key, OperatorUid: "src"})
	evs := jm.events.PopAll()
	r, ok := evs[0].(splitRequest)
	if len(evs) != 1 || !ok || r.uid != "src" || r.subtask != 3 || r.attempt != 2 {
		t.Fatalf("events %+v; want the split request of src subtask 3, attempt 2", evs)
	}
	r.reply([]byte("split-0"), false)
	if a, err := f.Wait(ctx); err != nil || string(a.GetSplit()) != "split-0" || !a.GetNoMoreSplits() {
		t.Fatalf("assignment %v, %v; want split-0, the last", a, err)
	}

	other := rpc.TaskKey("other", 2, graph.SubtaskID{})
	for name, call := range map[string]func() error{
		"update": func() error {
			_, err := g.UpdateTaskExecutionState(ctx, &rpcpb.TaskExecutionState{Task: other, State: rpcpb.ExecutionState_EXECUTION_STATE_RUNNING}).Wait(ctx)
			return err
		},
		"ack": func() error {
			_, err := g.AcknowledgeCheckpoint(ctx, &rpcpb.AcknowledgeCheckpoint{Task: other}).Wait(ctx)
			return err
		},
		"decline": func() error {
			_, err := g.DeclineCheckpoint(ctx, &rpcpb.DeclineCheckpoint{Task: other}).Wait(ctx)
			return err
		},
		"eod":   func() error { _, err := g.EndOfData(ctx, &rpcpb.EndOfData{Task: other}).Wait(ctx); return err },
		"split": func() error { _, err := g.RequestSplit(ctx, &rpcpb.SplitRequest{Task: other}).Wait(ctx); return err },
	} {
		if err := call(); !errors.Is(err, errOtherJob) {
			t.Errorf("%s of another job: err = %v; want errOtherJob", name, err)
		}
	}
	if evs := jm.events.PopAll(); len(evs) != 0 {
		t.Fatalf("messages of another job queued %+v", evs)
	}
	if n := rpc.PendingLocal(); n != 0 {
		t.Fatalf("%d embedded references left", n)
	}
}
