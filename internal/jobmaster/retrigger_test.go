package jobmaster

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/queue"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
)

// triggers is a Transport whose TaskExecutors record the triggers they
// get, in order.
type triggers struct {
	mu  sync.Mutex
	got []*rpcpb.TriggerCheckpointRequest
}

func (r *triggers) TaskExecutor(string) rpc.TaskExecutorGateway { return triggerRecorder{triggers: r} }

func (r *triggers) ServeJobMaster(string, rpc.JobMasterGateway) (func(), error) {
	return func() {}, nil
}

func (r *triggers) take() []*rpcpb.TriggerCheckpointRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.got
	r.got = nil
	return got
}

type triggerRecorder struct {
	rpc.TaskExecutorGateway // calls these tests do not make
	*triggers
}

func (r triggerRecorder) TriggerCheckpoint(_ context.Context, m *rpcpb.TriggerCheckpointRequest) *rpc.Future[*rpcpb.TriggerCheckpointResponse] {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, m)
	return rpc.Completed(&rpcpb.TriggerCheckpointResponse{Accepted: true}, nil)
}

// A re-trigger of a pending checkpoint (Trigger.Again, for tasks that
// became its roots since) names the directory its first trigger named; a
// savepoint's re-trigger that comes while its writer is still being made
// waits for the writer and goes out after the first trigger, with its
// location; a checkpoint without a directory (its trigger failed) is not
// sent again.
func TestRetriggerNamesTheFirstTriggersDirectory(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := &triggers{}
	source, consumer := graph.SubtaskID{Vertex: 0}, graph.SubtaskID{Vertex: 1}
	jm := &JobMaster{jobID: "job", events: queue.New[any](), sched: scheduler.New(nil, nil), opts: Options{RPC: rec},
		log: slog.New(slog.DiscardHandler), placed: map[graph.SubtaskID]string{source: "tm-0", consumer: "tm-0"},
		cp: &checkpointing{opts: CheckpointOptions{Storage: st}, dirs: map[int64]*storage.CheckpointDir{},
			persist: map[int64]checkpoint.Persist{}, again: map[int64][]checkpoint.Trigger{}}}
	// sent checks the triggers sent since the last check: to which
	// vertex, naming which directory, in order.
	type trigger struct {
		vertex   int
		location string
	}
	sent := func(want ...trigger) {
		t.Helper()
		var got []trigger
		for _, m := range rec.take() {
			_, _, id := rpc.FromTaskKey(m.GetTask())
			got = append(got, trigger{id.Vertex, m.GetBarrier().GetLocation()})
		}
		if !slices.Equal(got, want) {
			t.Fatalf("triggers sent %+v; want %+v", got, want)
		}
	}
	roots := func(ids ...graph.SubtaskID) []graph.SubtaskID { return ids }

	chk, err := st.CreateCheckpointWriter("job", 5)
	if err != nil {
		t.Fatal(err)
	}
	jm.startTrigger(ctx, checkpoint.Trigger{ID: 5, Tasks: roots(source)}, chk, nil)
	jm.triggerAgain(checkpoint.Trigger{ID: 5, Tasks: roots(consumer), Again: true})
	sent(trigger{0, chk.Location()}, trigger{1, chk.Location()})

	jm.cp.dirs[6] = nil // the savepoint's writer is being made
	jm.triggerAgain(checkpoint.Trigger{ID: 6, Kind: checkpoint.Savepoint, Tasks: roots(consumer), Again: true})
	sent()
	sp, err := st.CreateSavepointWriter(ctx, "job", 6, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	jm.savepointWriter(ctx, writerEvent{trigger: checkpoint.Trigger{ID: 6, Kind: checkpoint.Savepoint, Tasks: roots(source)}, dir: sp})
	sent(trigger{0, sp.Location()}, trigger{1, sp.Location()})
	if len(jm.cp.again) != 0 {
		t.Fatalf("re-triggers left behind: %v", jm.cp.again)
	}

	jm.triggerAgain(checkpoint.Trigger{ID: 7, Tasks: roots(consumer), Again: true})
	sent()
}
