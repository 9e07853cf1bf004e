package checkpoint

import (
	"fmt"

	"github.com/weir-engine/weir/internal/graph"
)

// Pattern is how the subtasks of a producer vertex feed the subtasks of a
// consumer vertex, Flink's DistributionPattern.
type Pattern int

const (
	// Pointwise connects each consumer subtask to a contiguous range of
	// producer subtasks (see [ProducersOf]).
	Pointwise Pattern = iota
	// AllToAll connects every producer subtask to every consumer subtask.
	AllToAll
)

// String returns the name used in logs and test scripts.
func (p Pattern) String() string {
	switch p {
	case Pointwise:
		return "pointwise"
	case AllToAll:
		return "all-to-all"
	}
	return fmt.Sprintf("Pattern(%d)", int(p))
}

// Edge is one input of a vertex: the producing vertex and the pattern.
type Edge struct {
	// Source is the ID of the producing vertex.
	Source  int
	Pattern Pattern
}

// Vertex is a job vertex (a chain of operators) as the coordinator sees it:
// how many subtasks it has and where its inputs come from.
type Vertex struct {
	ID          int
	Parallelism int
	Inputs      []Edge
	// IsSource marks a vertex whose chain starts with a source. The plan
	// does not need it: what makes a task a root is that none of its
	// producers runs, which for a vertex without inputs is always so (and a
	// vertex may chain a source yet have network inputs, like Flink's
	// multiple-input tasks with chained sources). It is kept for callers.
	IsSource bool
}

// Topology is the input the coordinator needs from the job graph. It is
// decoupled from internal/graph on purpose: the coordinator only needs
// vertex ids, parallelism and edge patterns, and tests build it by hand.
type Topology struct {
	// Vertices in topological order: every input names an earlier vertex.
	Vertices []Vertex
}

// Validate reports the first structural problem of the topology: no
// vertex, duplicate ids, a parallelism below one, an input that does not
// name an earlier vertex, or an unknown pattern.
func (t *Topology) Validate() error {
	_, err := compile(t)
	return err
}

// ProducersOf returns the producer subtasks that consumer subtask index
// reads, in channel order. AllToAll: all of them. Pointwise, Flink's rule:
// with equal parallelism consumer i reads producer i; with more producers
// than consumers, consumer c reads producers [c*P/C, (c+1)*P/C); with fewer,
// producer j feeds consumers [ceil(j*C/P), ceil((j+1)*C/P)), so consumer c
// reads the single producer floor(c*P/C).
func ProducersOf(p Pattern, producers, consumers, index int) []int {
	lo, hi := producerRange(p, producers, consumers, index)
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// producerRange is ProducersOf without the allocation: the producers of
// consumer index are [lo, hi).
func producerRange(p Pattern, producers, consumers, index int) (lo, hi int) {
	if p == AllToAll {
		return 0, producers
	}
	lo = index * producers / consumers
	hi = (index + 1) * producers / consumers
	if hi <= lo { // fewer producers than consumers: exactly one
		hi = lo + 1
	}
	return lo, hi
}

// index is a validated Topology with vertex ids resolved to positions and
// every subtask given a dense "flat" number, so per-task state lives in
// slices.
type index struct {
	vertices []Vertex
	// pos maps a vertex ID to its position in vertices.
	pos map[int]int
	// offset[v] is the flat number of subtask 0 of vertices[v].
	offset []int
	// inputs[v] are the inputs of vertices[v] with Source as a position.
	inputs [][]Edge
	total  int
}

func compile(t *Topology) (*index, error) {
	if t == nil || len(t.Vertices) == 0 {
		return nil, fmt.Errorf("checkpoint: empty topology")
	}
	ix := &index{
		vertices: t.Vertices,
		pos:      make(map[int]int, len(t.Vertices)),
		offset:   make([]int, len(t.Vertices)),
		inputs:   make([][]Edge, len(t.Vertices)),
	}
	for i, v := range t.Vertices {
		if _, dup := ix.pos[v.ID]; dup {
			return nil, fmt.Errorf("checkpoint: duplicate vertex id %d", v.ID)
		}
		if v.Parallelism < 1 {
			return nil, fmt.Errorf("checkpoint: vertex %d: parallelism %d < 1", v.ID, v.Parallelism)
		}
		for _, e := range v.Inputs {
			src, ok := ix.pos[e.Source]
			if !ok {
				return nil, fmt.Errorf("checkpoint: vertex %d: input %d is not an earlier vertex (vertices must be in topological order)", v.ID, e.Source)
			}
			if e.Pattern != Pointwise && e.Pattern != AllToAll {
				return nil, fmt.Errorf("checkpoint: vertex %d: input %d: unknown %v", v.ID, e.Source, e.Pattern)
			}
			ix.inputs[i] = append(ix.inputs[i], Edge{Source: src, Pattern: e.Pattern})
		}
		ix.pos[v.ID] = i
		ix.offset[i] = ix.total
		ix.total += v.Parallelism
	}
	return ix, nil
}

// flat returns the flat number of task, or false when the topology has no
// such subtask.
func (ix *index) flat(task graph.SubtaskID) (int, bool) {
	v, ok := ix.pos[task.Vertex]
	if !ok || task.Subtask < 0 || task.Subtask >= ix.vertices[v].Parallelism {
		return 0, false
	}
	return ix.offset[v] + task.Subtask, true
}

// task is the inverse of flat, for a vertex position and subtask.
func (ix *index) task(v, subtask int) graph.SubtaskID {
	return graph.SubtaskID{Vertex: ix.vertices[v].ID, Subtask: subtask}
}

// taskOf maps a flat number back to its graph.SubtaskID (binary search on offset).
func (ix *index) taskOf(flat int) graph.SubtaskID {
	lo, hi := 0, len(ix.offset)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if ix.offset[mid] <= flat {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return ix.task(lo, flat-ix.offset[lo])
}
