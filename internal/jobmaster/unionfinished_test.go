package jobmaster

import (
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
)

// FLIP-147 (FLINK-21080): a checkpoint is not ready while an operator with
// union list state has some subtasks whose operators finished, FINISHED
// or waiting for their final checkpoint, and some running; it passes once
// all of them finished their operators, even if none is FINISHED (their
// final checkpoint, which unblocks them all). The metadata marks only the
// FINISHED subtasks: a waiting one's state is stored as a running one's.
func TestUnionListStateWithFinishedSubtasksIsNotReady(t *testing.T) {
	union := []storage.OperatorListState{{Name: "counts", Mode: storage.ModeUnion, Entries: [][]byte{[]byte("1")}}}
	split := []storage.OperatorListState{{Name: "offsets", Mode: storage.ModeSplit, Entries: [][]byte{[]byte("1")}}}
	// subtask is a subtask's part of a checkpoint: FINISHED (no
	// acknowledgement), or acknowledged with its operators finished or not.
	type subtask struct{ finished, waiting bool }
	for _, tc := range []struct {
		name     string
		lists    []storage.OperatorListState
		subtasks [2]subtask
		notReady bool
	}{
		{name: "all running", lists: union},
		{name: "one waiting for its final checkpoint", lists: union, subtasks: [2]subtask{{waiting: true}, {}}, notReady: true},
		{name: "one FINISHED", lists: union, subtasks: [2]subtask{{finished: true}, {}}, notReady: true},
		{name: "all waiting", lists: union, subtasks: [2]subtask{{waiting: true}, {waiting: true}}},
		{name: "one FINISHED, the other waiting", lists: union, subtasks: [2]subtask{{finished: true}, {waiting: true}}},
		{name: "split list state, one waiting", lists: split, subtasks: [2]subtask{{waiting: true}, {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jm := &JobMaster{jobID: "job", graph: &graph.JobGraph{Vertices: []*graph.JobVertex{
				{ID: 0, Parallelism: 2, Chain: []*graph.StreamNode{{UID: "counter", Name: "counter"}}},
			}}}
			a := checkpoint.Persist{ID: 3, States: map[graph.SubtaskID]any{}}
			for i, s := range tc.subtasks {
				id := graph.SubtaskID{Vertex: 0, Subtask: i}
				if s.finished {
					a.Finished = append(a.Finished, id)
					continue
				}
				a.States[id] = map[string]storage.SubtaskState{"counter": {Index: i, Finished: s.waiting, OperatorLists: tc.lists}}
			}
			md, ended := jm.metadata(a)
			err := unionWithFinished(md, ended)
			if got := errors.Is(err, checkpoint.ErrNotReady); got != tc.notReady {
				t.Errorf("not ready: %v (%v), want %v", got, err, tc.notReady)
			}
			for i, s := range tc.subtasks {
				if st := md.Operators[0].Subtasks[i]; st.Finished != s.finished {
					t.Errorf("subtask %d: Finished %v in the metadata, want %v (FINISHED)", i, st.Finished, s.finished)
				}
			}
		})
	}
}
