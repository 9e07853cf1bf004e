package restore

import (
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// ErrFinishedState reports a checkpoint whose finished operators cannot be
// restored into the job's graph.
var ErrFinishedState = errors.New("restore: inconsistent finished state")

// Vertex is a job vertex as the finished-state check sees it: its chained
// operators (by uid) and its inputs.
type Vertex struct {
	ID    int
	Name  string
	UIDs  []string
	Input []Input
}

// Input is an edge into a vertex.
type Input struct {
	Source   int
	AllToAll bool
}

type finishState int

const (
	running finishState = iota
	partial
	fully
)

func (s finishState) String() string {
	return [...]string{"running", "partially finished", "fully finished"}[s]
}

// CheckFinished checks that the finished operators recorded in md fit the
// job (FLIP-147, as Flink's VertexFinishedStateChecker): all operators of a
// vertex agree on being fully finished; every predecessor of a fully
// finished vertex is fully finished; a partially finished vertex has its
// ALL_TO_ALL predecessors fully finished and its POINTWISE predecessors at
// least partially finished. Operators the checkpoint does not know count as
// running. A violation, such as a new operator inserted upstream of a
// finished one, is an error naming the operators.
func CheckFinished(md *storage.Metadata, vs []Vertex) error {
	ops := make(map[string]*storage.OperatorState, len(md.Operators))
	for i := range md.Operators {
		ops[md.Operators[i].UID] = &md.Operators[i]
	}
	opState := func(uid string) finishState {
		o, ok := ops[uid]
		if !ok {
			return running
		}
		if o.FullyFinished {
			return fully
		}
		for _, s := range o.Subtasks {
			if s.Finished {
				return partial
			}
		}
		return running
	}
	states := make(map[int]finishState, len(vs))
	byID := make(map[int]Vertex, len(vs))
	for _, v := range vs {
		byID[v.ID] = v
		var fullyN int
		st := running
		for _, uid := range v.UIDs {
			s := opState(uid)
			if s == fully {
				fullyN++
			}
			st = max(st, s)
		}
		if fullyN > 0 && fullyN < len(v.UIDs) {
			var mixed []string
			for _, uid := range v.UIDs {
				mixed = append(mixed, fmt.Sprintf("%q is %v", uid, opState(uid)))
			}
			return fmt.Errorf("%w: the operators chained in %s disagree: %v; a fully finished operator cannot be chained with one that was not", ErrFinishedState, v.Name, mixed)
		}
		states[v.ID] = st
	}
	for _, v := range vs {
		st := states[v.ID]
		for _, in := range v.Input {
			up, upState := byID[in.Source], states[in.Source]
			switch {
			case st == fully && upState != fully:
				return fmt.Errorf("%w: %s was fully finished, but its input %s is %v: an operator was probably added upstream of a finished one",
					ErrFinishedState, v.Name, up.Name, upState)
			case st == partial && in.AllToAll && upState != fully:
				return fmt.Errorf("%w: %s was partially finished, so its all-to-all input %s must be fully finished, but it is %v",
					ErrFinishedState, v.Name, up.Name, upState)
			case st == partial && !in.AllToAll && upState == running:
				return fmt.Errorf("%w: %s was partially finished, so its pointwise input %s must have finished at least partly, but it is running",
					ErrFinishedState, v.Name, up.Name)
			}
		}
	}
	return nil
}
