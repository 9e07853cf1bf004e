package taskmanager

import (
	"context"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/task"
)

// The acknowledgement of a snapshot taken after the task's operators
// finished (the task waits for its final checkpoint) says so for each
// operator it holds state of: the JobMaster counts such subtasks as
// finished for union list state (FLIP-147, FLINK-21080). A running task's
// does not.
func TestStateWriterMarksFinishedOperators(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vertex := &graph.JobVertex{ID: 0, Parallelism: 2, Chain: []*graph.StreamNode{{UID: "src"}, {UID: "counter"}}}
	w := &stateWriter{ctx: ctx, storage: func(context.Context) (*storage.Storage, error) { return st, nil }, jobID: "job", vertex: vertex, subtask: 1}
	for _, finished := range []bool{false, true} {
		dir, err := st.CreateCheckpointWriter("job", 7)
		if err != nil {
			t.Fatal(err)
		}
		snap := &task.Snapshot{CheckpointID: 7, Location: dir.Location(), Finished: finished, Operators: map[string]*op.Snapshot{
			"counter": {Lists: []op.NamedList{{Name: "counts", Mode: op.UnionList, Entries: [][]byte{[]byte("10")}}}},
		}}
		out, err := w.write(snap)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := out.Operators["counter"]
		if !ok || got.Finished != finished || got.Index != 1 || len(got.OperatorLists) != 1 {
			t.Errorf("operators finished %v: acknowledged %+v (present %v), want Finished %v at index 1 with its list", finished, got, ok, finished)
		}
		if _, ok := out.Operators["src"]; ok {
			t.Errorf("operators finished %v: an operator without state is in the acknowledgement", finished)
		}
	}
}
