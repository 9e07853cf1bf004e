package allocator

import (
	"errors"
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/keygroup"
)

// Vertex is what the allocator needs to know of a job vertex.
type Vertex struct {
	// ID is the vertex's ID in the job graph.
	ID int
	// Group is the vertex's slot-sharing group.
	Group int
	// Min and Max bound the vertex's parallelism (FLIP-291's resource
	// requirements); Max 0 means MaxParallelism.
	Min, Max int
	// MaxParallelism is the vertex's number of key groups, a hard upper
	// bound on its parallelism.
	MaxParallelism int
}

// Lower is the least parallelism the vertex may run at (at least 1).
func (v Vertex) Lower() int { return max(v.Min, 1) }

// Upper is the greatest parallelism the vertex may run at.
func (v Vertex) Upper() int {
	if v.Max <= 0 {
		return v.MaxParallelism
	}
	return min(v.Max, v.MaxParallelism)
}

// ErrInvalidVertex marks vertices whose bounds cannot be met.
var ErrInvalidVertex = errors.New("allocator: invalid vertex")

// Validate checks that every vertex has bounds that fit its max
// parallelism and that IDs are unique.
func Validate(vs []Vertex) error {
	if len(vs) == 0 {
		return fmt.Errorf("%w: a job needs at least one vertex", ErrInvalidVertex)
	}
	seen := make(map[int]bool, len(vs))
	for _, v := range vs {
		if seen[v.ID] {
			return fmt.Errorf("%w: vertex %d appears twice", ErrInvalidVertex, v.ID)
		}
		seen[v.ID] = true
		if v.MaxParallelism < 1 || v.MaxParallelism > keygroup.UpperBoundMaxParallelism {
			return fmt.Errorf("%w: vertex %d: max parallelism %d not in [1, %d]", ErrInvalidVertex, v.ID, v.MaxParallelism, keygroup.UpperBoundMaxParallelism)
		}
		if v.Min < 0 || v.Max < 0 {
			return fmt.Errorf("%w: vertex %d: negative bounds [%d, %d]", ErrInvalidVertex, v.ID, v.Min, v.Max)
		}
		if v.Max > v.MaxParallelism {
			return fmt.Errorf("%w: vertex %d: upper bound %d above max parallelism %d", ErrInvalidVertex, v.ID, v.Max, v.MaxParallelism)
		}
		if v.Lower() > v.Upper() {
			return fmt.Errorf("%w: vertex %d: lower bound %d above upper bound %d (max %d, max parallelism %d)",
				ErrInvalidVertex, v.ID, v.Lower(), v.Upper(), v.Max, v.MaxParallelism)
		}
	}
	return nil
}

// group is one slot-sharing group: its vertices in ID order and the
// slots it needs at least and can use at most.
type group struct {
	id       int
	vertices []Vertex
	lo, hi   int
}

// groups splits vs by slot-sharing group, in group ID order.
func groups(vs []Vertex) []group {
	byID := make(map[int]*group)
	var ids []int
	for _, v := range vs {
		g, ok := byID[v.Group]
		if !ok {
			g = &group{id: v.Group}
			byID[v.Group] = g
			ids = append(ids, v.Group)
		}
		g.vertices = append(g.vertices, v)
		g.lo = max(g.lo, v.Lower())
		g.hi = max(g.hi, v.Upper())
	}
	slices.Sort(ids)
	out := make([]group, len(ids))
	for i, id := range ids {
		out[i] = *byID[id]
		slices.SortFunc(out[i].vertices, func(a, b Vertex) int { return a.ID - b.ID })
	}
	return out
}

// MinSlots is the number of slots the job needs to run at all: every
// group at its vertices' lower bounds.
func MinSlots(vs []Vertex) int {
	n := 0
	for _, g := range groups(vs) {
		n += g.lo
	}
	return n
}

// DesiredSlots is the number of slots with which every vertex runs at its
// upper bound; more slots change nothing.
func DesiredSlots(vs []Vertex) int {
	n := 0
	for _, g := range groups(vs) {
		n += g.hi
	}
	return n
}
