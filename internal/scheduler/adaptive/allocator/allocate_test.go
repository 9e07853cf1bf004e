package allocator_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// tmSlots returns n slots of each named TaskManager: tmSlots("a", 2, "b", 1).
func tmSlots(args ...any) []slots.ID {
	var out []slots.ID
	for i := 0; i < len(args); i += 2 {
		for j := range args[i+1].(int) {
			out = append(out, slots.ID{TaskManager: args[i].(string), Index: j})
		}
	}
	return out
}

// render prints a plan as "par v0=2 v1=1 | 0/0@a/0 ...".
func render(p allocator.Plan) string {
	var b strings.Builder
	b.WriteString("par")
	for v := range len(p.Parallelism) + 10 {
		if n, ok := p.Parallelism[v]; ok {
			fmt.Fprintf(&b, " v%d=%d", v, n)
		}
	}
	b.WriteString(" |")
	for _, a := range p.Deploy.Assignments {
		fmt.Fprintf(&b, " %d/%d@%v", a.Vertex, a.Subtask, a.Slot)
	}
	return b.String()
}

func TestAllocate(t *testing.T) {
	tests := []struct {
		name     string
		vertices []allocator.Vertex
		res      allocator.Resources
		want     string
		err      error
	}{
		{
			name:     "one group runs at the slots it gets, spread over TaskManagers",
			vertices: []allocator.Vertex{{ID: 0, Max: 4, MaxParallelism: 128}, {ID: 1, Max: 2, MaxParallelism: 128}},
			res:      allocator.Resources{Slots: tmSlots("b", 2, "a", 1)},
			want:     "par v0=3 v1=2 | 0/0@a/0 0/1@b/0 0/2@b/1 1/0@a/0 1/1@b/0",
		},
		{
			name:     "more slots than desired leave the rest free",
			vertices: []allocator.Vertex{{ID: 0, Max: 2, MaxParallelism: 128}},
			res:      allocator.Resources{Slots: tmSlots("a", 3)},
			want:     "par v0=2 | 0/0@a/0 0/1@a/1",
		},
		{
			name:     "max parallelism 1 never goes above 1",
			vertices: []allocator.Vertex{{ID: 0, MaxParallelism: 1}, {ID: 1, MaxParallelism: 128}},
			res:      allocator.Resources{Slots: tmSlots("a", 4)},
			want:     "par v0=1 v1=4 | 0/0@a/0 1/0@a/0 1/1@a/1 1/2@a/2 1/3@a/3",
		},
		{
			name: "separate groups share the slots round-robin after their minimum",
			vertices: []allocator.Vertex{
				{ID: 0, Group: 0, Min: 2, Max: 8, MaxParallelism: 128},
				{ID: 1, Group: 1, Max: 8, MaxParallelism: 128},
			},
			res:  allocator.Resources{Slots: tmSlots("a", 5)},
			want: "par v0=3 v1=2 | 0/0@a/0 0/1@a/1 0/2@a/2 1/0@a/3 1/1@a/4",
		},
		{
			name:     "duplicate slots count once",
			vertices: []allocator.Vertex{{ID: 0, Max: 4, MaxParallelism: 128}},
			res:      allocator.Resources{Slots: append(tmSlots("a", 2), tmSlots("a", 2)...)},
			want:     "par v0=2 | 0/0@a/0 0/1@a/1",
		},
		{
			name:     "fewer slots than the lower bounds",
			vertices: []allocator.Vertex{{ID: 0, Group: 0, Min: 2, MaxParallelism: 128}, {ID: 1, Group: 1, MaxParallelism: 128}},
			res:      allocator.Resources{Slots: tmSlots("a", 2)},
			err:      allocator.ErrNotEnoughSlots,
		},
		{
			name:     "lower bound above the max parallelism",
			vertices: []allocator.Vertex{{ID: 0, Min: 3, MaxParallelism: 2}},
			res:      allocator.Resources{Slots: tmSlots("a", 4)},
			err:      allocator.ErrInvalidVertex,
		},
		{
			name:     "upper bound above the max parallelism",
			vertices: []allocator.Vertex{{ID: 0, Max: 2, MaxParallelism: 1}},
			res:      allocator.Resources{Slots: tmSlots("a", 4)},
			err:      allocator.ErrInvalidVertex,
		},
		{
			name: "state held locally pulls its subtask to its TaskManager",
			// Two subtasks of 128 key groups: subtask 1 owns [64, 127],
			// which tm "b" holds, so shared slot 1 goes to b although
			// round-robin would put subtask 0 there.
			vertices: []allocator.Vertex{{ID: 0, Max: 2, MaxParallelism: 128}},
			res: allocator.Resources{
				Slots: tmSlots("a", 1, "b", 1, "c", 1),
				Local: []allocator.Local{{TaskManager: "b", Vertex: 0, KeyGroups: keygroup.Range{Start: 64, End: 127}}},
			},
			want: "par v0=2 | 0/0@a/0 0/1@b/0",
		},
		{
			name:     "the TaskManager with more of the key groups wins",
			vertices: []allocator.Vertex{{ID: 0, Max: 1, MaxParallelism: 128}},
			res: allocator.Resources{
				Slots: tmSlots("a", 1, "b", 1),
				Local: []allocator.Local{
					{TaskManager: "a", Vertex: 0, KeyGroups: keygroup.Range{Start: 0, End: 9}},
					{TaskManager: "b", Vertex: 0, KeyGroups: keygroup.Range{Start: 10, End: 127}},
				},
			},
			want: "par v0=1 | 0/0@b/0",
		},
		{
			name:     "state on a TaskManager without slots is ignored",
			vertices: []allocator.Vertex{{ID: 0, Max: 1, MaxParallelism: 128}},
			res: allocator.Resources{
				Slots: tmSlots("a", 1, "b", 1),
				Local: []allocator.Local{{TaskManager: "gone", Vertex: 0, KeyGroups: keygroup.Range{Start: 0, End: 127}}},
			},
			want: "par v0=1 | 0/0@a/0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := allocator.Allocate(tt.vertices, tt.res)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := render(plan); got != tt.want {
				t.Errorf("plan\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestSlotCounts(t *testing.T) {
	vs := []allocator.Vertex{
		{ID: 0, Group: 0, Min: 2, Max: 4, MaxParallelism: 128},
		{ID: 1, Group: 0, Max: 6, MaxParallelism: 128},
		{ID: 2, Group: 1, MaxParallelism: 1},
	}
	if got := allocator.MinSlots(vs); got != 3 {
		t.Errorf("MinSlots = %d, want 3", got)
	}
	if got := allocator.DesiredSlots(vs); got != 7 {
		t.Errorf("DesiredSlots = %d, want 7", got)
	}
}

func TestPoolReserve(t *testing.T) {
	var pool allocator.Pool
	pool.Set(tmSlots("a", 2, "b", 1))
	plan, err := allocator.Allocate([]allocator.Vertex{{ID: 0, Max: 2, MaxParallelism: 8}}, allocator.Resources{Slots: pool.Slots()})
	if err != nil {
		t.Fatal(err)
	}
	// The plan takes a/0 and b/0; b leaves before the commit.
	pool.Set(tmSlots("a", 2))
	if err := pool.Reserve(plan); !errors.Is(err, allocator.ErrSlotGone) {
		t.Fatalf("reserve after b left: err = %v", err)
	}
	if pool.Reserved(slots.ID{TaskManager: "a", Index: 0}) {
		t.Fatal("a failed reserve reserved a slot")
	}
	pool.Set(tmSlots("a", 2, "b", 1))
	if err := pool.Reserve(plan); err != nil {
		t.Fatal(err)
	}
	for _, s := range plan.Slots() {
		if !pool.Reserved(s) {
			t.Errorf("%v not reserved", s)
		}
	}
	pool.Set(tmSlots("b", 1))
	if pool.Reserved(slots.ID{TaskManager: "a", Index: 0}) || !pool.Reserved(slots.ID{TaskManager: "b", Index: 0}) {
		t.Error("a slot that left stays reserved, or one that stayed lost its reservation")
	}
	pool.Release()
	if pool.Reserved(slots.ID{TaskManager: "b", Index: 0}) {
		t.Error("release kept a reservation")
	}
}
