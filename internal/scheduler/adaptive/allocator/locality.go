package allocator

import (
	"cmp"
	"slices"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// place fills in the Slot of every shared slot: first the pairs of shared
// slot and TaskManager with the most local key groups, best first, then
// the rest round-robin over TaskManagers. free is sorted and has no
// duplicates; there are at least len(shared) of them.
func place(shared []SharedSlot, gs []group, par map[int]int, free []slots.ID, local []Local) {
	byTM := make(map[string][]slots.ID)
	for _, s := range free {
		byTM[s.TaskManager] = append(byTM[s.TaskManager], s)
	}
	used := make(map[slots.ID]bool, len(shared))
	done := make([]bool, len(shared))
	for _, c := range candidates(shared, gs, par, local, byTM) {
		if done[c.shared] || len(byTM[c.tm]) == 0 {
			continue
		}
		shared[c.shared].Slot = byTM[c.tm][0]
		used[byTM[c.tm][0]] = true
		byTM[c.tm] = byTM[c.tm][1:]
		done[c.shared] = true
	}
	rest := slices.DeleteFunc(slots.Spread(free), func(s slots.ID) bool { return used[s] })
	for i := range shared {
		if !done[i] {
			shared[i].Slot, rest = rest[0], rest[1:]
		}
	}
}

// candidate is a shared slot (by position) on a TaskManager, with the
// number of key groups its subtasks would find there.
type candidate struct {
	shared int
	tm     string
	score  int
}

// candidates scores every shared slot on every TaskManager that holds
// some of its key groups, best first.
func candidates(shared []SharedSlot, gs []group, par map[int]int, local []Local, byTM map[string][]slots.ID) []candidate {
	if len(local) == 0 {
		return nil
	}
	type key struct {
		tm     string
		vertex int
	}
	held := make(map[key][]keygroup.Range)
	for _, l := range local {
		if len(byTM[l.TaskManager]) > 0 {
			k := key{l.TaskManager, l.Vertex}
			held[k] = append(held[k], l.KeyGroups)
		}
	}
	groupOf := make(map[int]group, len(gs))
	for _, g := range gs {
		groupOf[g.id] = g
	}
	tms := make([]string, 0, len(byTM))
	for tm := range byTM {
		tms = append(tms, tm)
	}
	slices.Sort(tms)
	var out []candidate
	for i, s := range shared {
		for _, tm := range tms {
			score := 0
			for _, v := range groupOf[s.Group].vertices {
				if s.Index >= par[v.ID] {
					continue
				}
				want := keygroup.RangeFor(v.MaxParallelism, par[v.ID], s.Index)
				for _, r := range held[key{tm, v.ID}] {
					score += overlap(want, r)
				}
			}
			if score > 0 {
				out = append(out, candidate{shared: i, tm: tm, score: score})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.shared, b.shared), cmp.Compare(a.tm, b.tm))
	})
	return out
}

// overlap counts the key groups two ranges share.
func overlap(a, b keygroup.Range) int {
	return keygroup.Range{Start: max(a.Start, b.Start), End: min(a.End, b.End)}.Len()
}

// Local is what the TaskManagers of p hold once its generation ran: the
// key groups of each subtask of a vertex of vs, on the TaskManager of its
// slot (vertices of vs that p does not run hold nothing). Given back to
// Allocate for the next generation, it keeps subtasks where their key
// groups stay, so that a TaskManager that keeps its slots restores from
// its local copies (local recovery) instead of checkpoint storage.
func (p Plan) Local(vs []Vertex) []Local {
	maxp := make(map[int]int, len(vs))
	for _, v := range vs {
		maxp[v.ID] = v.MaxParallelism
	}
	var out []Local
	for _, a := range p.Deploy.Assignments {
		m, par := maxp[a.Vertex], p.Parallelism[a.Vertex]
		if m <= 0 || par <= 0 || a.Subtask >= par {
			continue
		}
		out = append(out, Local{TaskManager: a.Slot.TaskManager, Vertex: a.Vertex, KeyGroups: keygroup.RangeFor(m, par, a.Subtask)})
	}
	return out
}
