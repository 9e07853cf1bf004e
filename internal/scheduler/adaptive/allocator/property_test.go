package allocator_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
	"github.com/weir-engine/weir/internal/scheduler/slots"
	"pgregory.net/rapid"
)

// genInput draws a job (1-5 vertices in 1-3 sharing groups, with bounds
// that fit their max parallelism) and resources (0-12 slots on up to 4
// TaskManagers, some duplicated, and some local state).
func genInput(t *rapid.T) ([]allocator.Vertex, allocator.Resources) {
	n := rapid.IntRange(1, 5).Draw(t, "vertices")
	vs := make([]allocator.Vertex, n)
	for i := range vs {
		maxP := rapid.SampledFrom([]int{1, 2, 4, 7, 128}).Draw(t, "maxParallelism")
		lo := rapid.IntRange(0, min(maxP, 3)).Draw(t, "min")
		hi := rapid.IntRange(0, maxP).Filter(func(h int) bool { return h == 0 || h >= max(lo, 1) }).Draw(t, "max")
		vs[i] = allocator.Vertex{ID: i, Group: rapid.IntRange(0, 2).Draw(t, "group"), Min: lo, Max: hi, MaxParallelism: maxP}
	}
	tms := []string{"a", "b", "c", "d"}
	var res allocator.Resources
	for range rapid.IntRange(0, 12).Draw(t, "slots") {
		res.Slots = append(res.Slots, slots.ID{TaskManager: rapid.SampledFrom(tms).Draw(t, "tm"), Index: rapid.IntRange(0, 3).Draw(t, "index")})
	}
	for range rapid.IntRange(0, 4).Draw(t, "locals") {
		v := rapid.IntRange(0, n-1).Draw(t, "localVertex")
		start := rapid.IntRange(0, vs[v].MaxParallelism-1).Draw(t, "start")
		end := rapid.IntRange(start, vs[v].MaxParallelism-1).Draw(t, "end")
		res.Local = append(res.Local, allocator.Local{TaskManager: rapid.SampledFrom(tms).Draw(t, "localTM"), Vertex: v, KeyGroups: keygroup.Range{Start: start, End: end}})
	}
	return vs, res
}

func unique(ids []slots.ID) map[slots.ID]bool {
	m := make(map[slots.ID]bool)
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// TestAllocateProperties checks, for random jobs and slots: the plan uses
// only free slots, each once, and as many as it can; every vertex runs
// within its bounds; subtask i of every vertex of a group shares one slot
// and groups share none; it fails only when the slots cannot cover the
// lower bounds.
func TestAllocateProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vs, res := genInput(t)
		free := unique(res.Slots)
		plan, err := allocator.Allocate(vs, res)
		if len(free) < allocator.MinSlots(vs) {
			if !errors.Is(err, allocator.ErrNotEnoughSlots) {
				t.Fatalf("%d slots for a minimum of %d: err = %v", len(free), allocator.MinSlots(vs), err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		// Only free slots, each once, and as many as useful.
		used := make(map[slots.ID]bool)
		for _, s := range plan.Shared {
			if !free[s.Slot] {
				t.Fatalf("shared slot %v is not free", s)
			}
			if used[s.Slot] {
				t.Fatalf("slot %v used twice", s.Slot)
			}
			used[s.Slot] = true
		}
		if want := min(len(free), allocator.DesiredSlots(vs)); len(used) != want {
			t.Fatalf("plan uses %d slots, want %d (free %d, desired %d)", len(used), want, len(free), allocator.DesiredSlots(vs))
		}
		// Bounds.
		for _, v := range vs {
			p := plan.Parallelism[v.ID]
			if p < v.Lower() || p > v.Upper() {
				t.Fatalf("vertex %+v runs at %d", v, p)
			}
			if v.MaxParallelism == 1 && p != 1 {
				t.Fatalf("vertex with max parallelism 1 runs at %d", p)
			}
		}
		// Sharing: subtask i of a group's vertices in one slot, no slot in
		// two groups, every subtask placed once.
		groupOf := make(map[int]int)
		for _, v := range vs {
			groupOf[v.ID] = v.Group
		}
		slotOf := make(map[[2]int]slots.ID)
		owner := make(map[slots.ID]int)
		count := make(map[int]int)
		for _, a := range plan.Deploy.Assignments {
			count[a.Vertex]++
			k := [2]int{groupOf[a.Vertex], a.Subtask}
			if s, ok := slotOf[k]; ok && s != a.Slot {
				t.Fatalf("subtask %d of group %d in %v and %v", a.Subtask, k[0], s, a.Slot)
			}
			slotOf[k] = a.Slot
			if g, ok := owner[a.Slot]; ok && g != k[0] {
				t.Fatalf("slot %v shared by groups %d and %d", a.Slot, g, k[0])
			}
			owner[a.Slot] = k[0]
			if !used[a.Slot] {
				t.Fatalf("assignment %v outside the shared slots", a)
			}
		}
		for _, v := range vs {
			if count[v.ID] != plan.Parallelism[v.ID] {
				t.Fatalf("vertex %d: %d assignments for parallelism %d", v.ID, count[v.ID], plan.Parallelism[v.ID])
			}
		}
	})
}

// TestAllocateDeterministic checks that a plan depends only on what the
// inputs hold, not on the order they list it in.
func TestAllocateDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vs, res := genInput(t)
		a, errA := allocator.Allocate(vs, res)
		shuffled := allocator.Resources{
			Slots: rapid.Permutation(res.Slots).Draw(t, "slots"),
			Local: rapid.Permutation(res.Local).Draw(t, "local"),
		}
		b, errB := allocator.Allocate(rapid.Permutation(vs).Draw(t, "vertices"), shuffled)
		if fmt.Sprint(errA) != fmt.Sprint(errB) || !reflect.DeepEqual(a, b) {
			t.Fatalf("plans differ:\n%v %v\n%v %v", render(a), errA, render(b), errB)
		}
	})
}

// TestAllocateKeepsLocalState checks local recovery: when the job runs
// again at the same parallelism in the same slots, and the TaskManagers
// report the key groups an earlier placement (any one) left them, every
// subtask goes back to the TaskManager that holds its key groups.
func TestAllocateKeepsLocalState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var vs []allocator.Vertex
		for i := range rapid.IntRange(1, 3).Draw(t, "vertices") {
			vs = append(vs, allocator.Vertex{ID: i, Max: rapid.IntRange(1, 6).Draw(t, "max"), MaxParallelism: 128})
		}
		var free []slots.ID
		for _, tm := range []string{"a", "b", "c"} {
			for i := range rapid.IntRange(0, 3).Draw(t, "slots") {
				free = append(free, slots.ID{TaskManager: tm, Index: i})
			}
		}
		par, err := allocator.Parallelism(vs, len(free))
		if err != nil {
			t.Skip("no slots")
		}
		// An earlier placement: shared slot i in a random slot.
		earlier := rapid.Permutation(free).Draw(t, "earlier")
		var res allocator.Resources
		res.Slots = free
		for _, v := range vs {
			for i := range par[v.ID] {
				res.Local = append(res.Local, allocator.Local{TaskManager: earlier[i].TaskManager, Vertex: v.ID, KeyGroups: keygroup.RangeFor(128, par[v.ID], i)})
			}
		}
		plan, err := allocator.Allocate(vs, res)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range plan.Deploy.Assignments {
			if want := earlier[a.Subtask].TaskManager; a.Slot.TaskManager != want {
				t.Fatalf("subtask %d/%d placed on %s, its key groups are on %s", a.Vertex, a.Subtask, a.Slot.TaskManager, want)
			}
		}
	})
}
