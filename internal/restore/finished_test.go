package restore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/restore"
)

// op builds an operator state: f is "F" fully finished, "P" partially, "R"
// running.
func opState(uid, f string) storage.OperatorState {
	o := storage.OperatorState{UID: uid, Parallelism: 2, Subtasks: []storage.SubtaskState{{Index: 0}, {Index: 1}}}
	switch f {
	case "F":
		o.FullyFinished = true
		o.Subtasks[0].Finished, o.Subtasks[1].Finished = true, true
	case "P":
		o.Subtasks[0].Finished = true
	}
	return o
}

func TestCheckFinished(t *testing.T) {
	// src -> map (all-to-all) -> sink (pointwise)
	graph := []restore.Vertex{
		{ID: 0, Name: "src", UIDs: []string{"src"}},
		{ID: 1, Name: "map", UIDs: []string{"map"}, Input: []restore.Input{{Source: 0, AllToAll: true}}},
		{ID: 2, Name: "sink", UIDs: []string{"sink"}, Input: []restore.Input{{Source: 1}}},
	}
	tests := []struct {
		name   string
		states map[string]string
		graph  []restore.Vertex
		want   string // "" for ok
	}{
		{"all running", map[string]string{"src": "R", "map": "R", "sink": "R"}, graph, ""},
		{"source finished", map[string]string{"src": "F", "map": "R", "sink": "R"}, graph, ""},
		{"finished prefix", map[string]string{"src": "F", "map": "F", "sink": "P"}, graph, ""},
		{"partial behind all-to-all needs fully finished input", map[string]string{"src": "P", "map": "P", "sink": "R"}, graph, "all-to-all input src"},
		{"fully finished behind a running input", map[string]string{"src": "R", "map": "F", "sink": "R"}, graph, "map was fully finished, but its input src is running"},
		{"partial pointwise needs a finished input", map[string]string{"src": "F", "map": "R", "sink": "P"}, graph, "pointwise input map"},
		{"new operator inserted upstream of a finished one", map[string]string{"src": "F", "sink": "F"},
			[]restore.Vertex{
				{ID: 0, Name: "src", UIDs: []string{"src"}},
				{ID: 1, Name: "new-map", UIDs: []string{"new-map"}, Input: []restore.Input{{Source: 0}}},
				{ID: 2, Name: "sink", UIDs: []string{"sink"}, Input: []restore.Input{{Source: 1}}},
			}, "sink was fully finished, but its input new-map is running"},
		{"chain disagrees", map[string]string{"src": "F", "map": "R"},
			[]restore.Vertex{{ID: 0, Name: "src -> map", UIDs: []string{"src", "map"}}}, "disagree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := &storage.Metadata{}
			for uid, f := range tt.states {
				md.Operators = append(md.Operators, opState(uid, f))
			}
			err := restore.CheckFinished(md, tt.graph)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, restore.ErrFinishedState) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}
