package slots_test

import (
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

func TestAllocateSharesSlotsAndSpreads(t *testing.T) {
	free := []slots.ID{{"tm-b", 0}, {"tm-a", 1}, {"tm-a", 0}, {"tm-b", 1}}
	plan, err := slots.Allocate([]slots.Request{{Vertex: 0, Parallelism: 3}, {Vertex: 1, Parallelism: 2}}, free)
	if err != nil {
		t.Fatal(err)
	}
	wantSlots := []slots.ID{{"tm-a", 0}, {"tm-b", 0}, {"tm-a", 1}}
	for i, s := range wantSlots {
		if plan.Slots[i] != s {
			t.Fatalf("slots = %v, want %v", plan.Slots, wantSlots)
		}
	}
	want := []slots.Assignment{
		{graph.SubtaskID{Vertex: 0, Subtask: 0}, slots.ID{"tm-a", 0}}, {graph.SubtaskID{Vertex: 0, Subtask: 1}, slots.ID{"tm-b", 0}},
		{graph.SubtaskID{Vertex: 0, Subtask: 2}, slots.ID{"tm-a", 1}},
		{graph.SubtaskID{Vertex: 1, Subtask: 0}, slots.ID{"tm-a", 0}}, {graph.SubtaskID{Vertex: 1, Subtask: 1}, slots.ID{"tm-b", 0}},
	}
	if len(plan.Assignments) != len(want) {
		t.Fatalf("assignments = %v", plan.Assignments)
	}
	for i := range want {
		if plan.Assignments[i] != want[i] {
			t.Errorf("assignment %d = %v, want %v", i, plan.Assignments[i], want[i])
		}
	}
}

func TestAllocateNotEnoughSlots(t *testing.T) {
	_, err := slots.Allocate([]slots.Request{{Vertex: 0, Parallelism: 3}}, []slots.ID{{"tm", 0}})
	if !errors.Is(err, slots.ErrNotEnoughSlots) {
		t.Fatalf("err = %v", err)
	}
}
