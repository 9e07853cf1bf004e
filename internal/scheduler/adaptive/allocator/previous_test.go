package allocator_test

import (
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
)

// Plan.Local turns a generation's placement into the key groups its
// TaskManagers hold; given back to Allocate, the next plan keeps each
// subtask where most of its key groups are, at the same parallelism and
// after a rescale, where round-robin over the pool would move them.
func TestPreviousPlanKeepsKeyGroups(t *testing.T) {
	vs := func(max int) []allocator.Vertex {
		return []allocator.Vertex{{ID: 0, Max: max, MaxParallelism: 128}, {ID: 1, Max: max, MaxParallelism: 128}}
	}
	tests := []struct {
		name       string
		prevSlots  []any // the pool of the previous generation
		prevMax    int
		slots      []any // the pool of the next one
		max        int
		wantLocal  string
		wantNext   string
		roundRobin string // the next plan without the previous one
	}{
		{
			name:      "restart at the same parallelism on a grown pool",
			prevSlots: []any{"b", 1, "c", 1}, prevMax: 2,
			slots: []any{"a", 1, "b", 1, "c", 1}, max: 2,
			wantLocal:  "b:v0[0,63] c:v0[64,127] b:v1[0,63] c:v1[64,127]",
			wantNext:   "par v0=2 v1=2 | 0/0@b/0 0/1@c/0 1/0@b/0 1/1@c/0",
			roundRobin: "par v0=2 v1=2 | 0/0@a/0 0/1@b/0 1/0@a/0 1/1@b/0",
		},
		{
			name:      "rescale up: the new subtask goes to the new TaskManager",
			prevSlots: []any{"b", 1, "c", 1}, prevMax: 3,
			slots: []any{"a", 1, "b", 1, "c", 1}, max: 3,
			wantLocal:  "b:v0[0,63] c:v0[64,127] b:v1[0,63] c:v1[64,127]",
			wantNext:   "par v0=3 v1=3 | 0/0@b/0 0/1@a/0 0/2@c/0 1/0@b/0 1/1@a/0 1/2@c/0",
			roundRobin: "par v0=3 v1=3 | 0/0@a/0 0/1@b/0 0/2@c/0 1/0@a/0 1/1@b/0 1/2@c/0",
		},
		{
			name:      "rescale down: the TaskManagers that stay keep their key groups",
			prevSlots: []any{"a", 1, "b", 1, "c", 1}, prevMax: 3,
			slots: []any{"b", 1, "c", 1}, max: 3,
			wantLocal:  "a:v0[0,42] b:v0[43,85] c:v0[86,127] a:v1[0,42] b:v1[43,85] c:v1[86,127]",
			wantNext:   "par v0=2 v1=2 | 0/0@b/0 0/1@c/0 1/0@b/0 1/1@c/0",
			roundRobin: "par v0=2 v1=2 | 0/0@b/0 0/1@c/0 1/0@b/0 1/1@c/0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev, err := allocator.Allocate(vs(tt.prevMax), allocator.Resources{Slots: tmSlots(tt.prevSlots...)})
			if err != nil {
				t.Fatal(err)
			}
			local := prev.Local(vs(tt.prevMax))
			got := ""
			for i, l := range local {
				if i > 0 {
					got += " "
				}
				got += fmt.Sprintf("%s:v%d[%d,%d]", l.TaskManager, l.Vertex, l.KeyGroups.Start, l.KeyGroups.End)
			}
			if got != tt.wantLocal {
				t.Errorf("local\n got %s\nwant %s", got, tt.wantLocal)
			}
			for _, c := range []struct {
				local []allocator.Local
				want  string
			}{{local, tt.wantNext}, {nil, tt.roundRobin}} {
				next, err := allocator.Allocate(vs(tt.max), allocator.Resources{Slots: tmSlots(tt.slots...), Local: c.local})
				if err != nil {
					t.Fatal(err)
				}
				if got := render(next); got != c.want {
					t.Errorf("next plan (%d local)\n got %s\nwant %s", len(c.local), got, c.want)
				}
			}
		})
	}
}
