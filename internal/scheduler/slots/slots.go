// Package slots decides where subtasks run. It is pure: Allocate returns a
// plan and the caller deploys it.
//
// All vertices of a job share one slot sharing group, as in Flink's default:
// a slot holds at most one subtask of every vertex, so subtask i of every
// vertex goes to the i-th shared slot and a job needs as many slots as its
// highest parallelism. Shared slots are spread over TaskManagers
// round-robin, so that a job uses every TaskManager before doubling up.
package slots

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/graph"
)

// ID names a slot of a TaskManager.
type ID struct {
	TaskManager string
	Index       int
}

func (s ID) String() string { return fmt.Sprintf("%s/%d", s.TaskManager, s.Index) }

// Request is a vertex's demand.
type Request struct {
	Vertex      int
	Parallelism int
}

// Assignment places one subtask.
type Assignment struct {
	graph.SubtaskID
	Slot ID
}

// Plan is the result of an allocation.
type Plan struct {
	// Slots are the shared slots used, by shared-slot index.
	Slots       []ID
	Assignments []Assignment
}

// ErrNotEnoughSlots says the cluster is too small for the job.
var ErrNotEnoughSlots = fmt.Errorf("slots: not enough slots")

// Allocate places every subtask of reqs into free slots.
func Allocate(reqs []Request, free []ID) (Plan, error) {
	need := 0
	for _, r := range reqs {
		need = max(need, r.Parallelism)
	}
	if need > len(free) {
		return Plan{}, fmt.Errorf("%w: the job needs %d slots, %d are free", ErrNotEnoughSlots, need, len(free))
	}
	plan := Plan{Slots: spread(free)[:need]}
	for _, r := range reqs {
		for i := 0; i < r.Parallelism; i++ {
			plan.Assignments = append(plan.Assignments, Assignment{SubtaskID: graph.SubtaskID{Vertex: r.Vertex, Subtask: i}, Slot: plan.Slots[i]})
		}
	}
	return plan, nil
}

// spread orders slots round-robin over TaskManagers: first slot of every
// TaskManager, then second, and so on.
func spread(free []ID) []ID {
	s := slices.Clone(free)
	slices.SortFunc(s, func(a, b ID) int {
		return cmp.Or(cmp.Compare(a.TaskManager, b.TaskManager), cmp.Compare(a.Index, b.Index))
	})
	rank := make(map[string]int)
	ranked := make([]struct {
		id   ID
		rank int
	}, len(s))
	for i, id := range s {
		ranked[i].id, ranked[i].rank = id, rank[id.TaskManager]
		rank[id.TaskManager]++
	}
	slices.SortStableFunc(ranked, func(a, b struct {
		id   ID
		rank int
	}) int {
		return cmp.Compare(a.rank, b.rank)
	})
	for i, r := range ranked {
		s[i] = r.id
	}
	return s
}
