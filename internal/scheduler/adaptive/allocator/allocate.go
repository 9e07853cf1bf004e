package allocator

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// Local says that a TaskManager holds, from an earlier generation, the
// state of a vertex's key groups in KeyGroups.
type Local struct {
	TaskManager string
	Vertex      int
	KeyGroups   keygroup.Range
}

// Resources are the slots a job holds and the state its TaskManagers
// keep locally.
type Resources struct {
	Slots []slots.ID
	Local []Local
}

// SharedSlot is one slot of a slot-sharing group: it runs subtask Index
// of every vertex of Group whose parallelism exceeds Index.
type SharedSlot struct {
	Group, Index int
	Slot         slots.ID
}

// Plan is the allocator's decision. It changes nothing until reserved.
type Plan struct {
	// Parallelism is each vertex's parallelism, by vertex ID.
	Parallelism map[int]int
	// Shared lists the shared slots by group and index.
	Shared []SharedSlot
	// Deploy places every subtask, by vertex then subtask; it is what the
	// JobMaster deploys.
	Deploy slots.Plan
}

// Slots is the set of slots the plan uses, in Shared order.
func (p Plan) Slots() []slots.ID {
	out := make([]slots.ID, len(p.Shared))
	for i, s := range p.Shared {
		out[i] = s.Slot
	}
	return out
}

// SameParallelism reports whether two plans give every vertex the same parallelism
// (where subtasks run aside).
func (p Plan) SameParallelism(q Plan) bool { return maps.Equal(p.Parallelism, q.Parallelism) }

// ErrNotEnoughSlots says the slots cannot run every vertex at its lower
// bound.
var ErrNotEnoughSlots = errors.New("allocator: not enough slots")

// Parallelism decides each vertex's parallelism for n slots, or fails
// with ErrNotEnoughSlots.
func Parallelism(vs []Vertex, n int) (map[int]int, error) {
	if err := Validate(vs); err != nil {
		return nil, err
	}
	_, par, err := distribute(groups(vs), n)
	return par, err
}

// distribute hands n slots to groups: each its minimum, then one at a
// time round-robin to groups below their maximum. It returns the slots of
// each group (by position in gs) and each vertex's parallelism.
func distribute(gs []group, n int) ([]int, map[int]int, error) {
	got := make([]int, len(gs))
	need := 0
	for i, g := range gs {
		got[i] = g.lo
		need += g.lo
	}
	if n < need {
		return nil, nil, fmt.Errorf("%w: the job needs at least %d slots, it holds %d", ErrNotEnoughSlots, need, n)
	}
	for rest := n - need; rest > 0; {
		gave := false
		for i, g := range gs {
			if rest > 0 && got[i] < g.hi {
				got[i]++
				rest--
				gave = true
			}
		}
		if !gave {
			break
		}
	}
	par := make(map[int]int)
	for i, g := range gs {
		for _, v := range g.vertices {
			par[v.ID] = min(v.Upper(), got[i])
		}
	}
	return got, par, nil
}

// Allocate decides each vertex's parallelism for the slots in res and
// places every subtask, preferring TaskManagers that hold the subtask's
// key groups locally. Duplicate slots count once.
func Allocate(vs []Vertex, res Resources) (Plan, error) {
	if err := Validate(vs); err != nil {
		return Plan{}, err
	}
	free := slices.Clone(res.Slots)
	slices.SortFunc(free, compareSlots)
	free = slices.Compact(free)
	gs := groups(vs)
	got, par, err := distribute(gs, len(free))
	if err != nil {
		return Plan{}, err
	}
	plan := Plan{Parallelism: par}
	for i, g := range gs {
		for idx := range got[i] {
			plan.Shared = append(plan.Shared, SharedSlot{Group: g.id, Index: idx})
		}
	}
	place(plan.Shared, gs, par, free, res.Local)
	plan.Deploy = assignments(plan.Shared, gs, par)
	return plan, nil
}

func compareSlots(a, b slots.ID) int {
	return cmp.Or(cmp.Compare(a.TaskManager, b.TaskManager), cmp.Compare(a.Index, b.Index))
}

// assignments lists every subtask's slot, by vertex then subtask.
func assignments(shared []SharedSlot, gs []group, par map[int]int) slots.Plan {
	at := make(map[[2]int]slots.ID, len(shared))
	for _, s := range shared {
		at[[2]int{s.Group, s.Index}] = s.Slot
	}
	var p slots.Plan
	for _, g := range gs {
		for _, v := range g.vertices {
			for i := range par[v.ID] {
				p.Assignments = append(p.Assignments, slots.Assignment{SubtaskID: graph.SubtaskID{Vertex: v.ID, Subtask: i}, Slot: at[[2]int{g.id, i}]})
			}
		}
	}
	slices.SortFunc(p.Assignments, func(a, b slots.Assignment) int {
		return cmp.Or(cmp.Compare(a.Vertex, b.Vertex), cmp.Compare(a.Subtask, b.Subtask))
	})
	p.Slots = make([]slots.ID, len(shared))
	for i, s := range shared {
		p.Slots[i] = s.Slot
	}
	return p
}
