package scheduler_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// deployed names the subtasks of the Deploy actions in acts, "+" marking
// incremental ones, and the job's end.
func deployed(acts []any) []string {
	var out []string
	for _, a := range acts {
		switch a := a.(type) {
		case scheduler.Deploy:
			for _, as := range a.Plan.Assignments {
				mark := ""
				if a.Incremental {
					mark = "+"
				}
				out = append(out, fmt.Sprintf("%sv%d/%d", mark, as.Vertex, as.Subtask))
			}
		case scheduler.Terminated:
			out = append(out, string(a.Status))
		}
	}
	return out
}

func TestStagesRunAJobWiderThanItsSlots(t *testing.T) {
	// Vertex 1 (2 subtasks) reads vertex 0 (3 subtasks); 2 slots.
	s := scheduler.New([]slots.Request{{Vertex: 0, Parallelism: 3}, {Vertex: 1, Parallelism: 2}}, nil)
	s.SetStages(map[int][]int{1: {0}})
	s.Step(scheduler.Start{Free: []slots.ID{{TaskManager: "tm", Index: 0}, {TaskManager: "tm", Index: 1}}})
	finish := func(v, i int) []string {
		s.Step(scheduler.TaskState{ID: graph.SubtaskID{Vertex: v, Subtask: i}, State: scheduler.ExecFinished})
		return deployed(s.Ready())
	}
	steps := []struct {
		name string
		got  []string
		want []string
	}{
		{"start", deployed(s.Ready()), []string{"v0/0", "v0/1"}},
		{"a producer ends: the third takes its slot", finish(0, 0), []string{"+v0/2"}},
		{"another ends: the consumers wait for the third", finish(0, 1), nil},
		{"the last producer ends: the consumers start", finish(0, 2), []string{"+v1/0", "+v1/1"}},
		{"one consumer ends", finish(1, 0), nil},
		{"the last ends the job", finish(1, 1), []string{"FINISHED"}},
	}
	for _, st := range steps {
		if !slices.Equal(st.got, st.want) {
			t.Fatalf("%s: deployed %v, want %v", st.name, st.got, st.want)
		}
	}
}
