package adaptive

import (
	"fmt"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
)

// ExecutionGraph is one generation of the job: the plan it runs and the
// state of each of its subtasks. Each generation has its own; reports of
// another generation never touch it.
type ExecutionGraph struct {
	// Generation numbers the graph: 0 first, one more per graph created.
	Generation int
	// Plan is the parallelism and placement the graph runs at.
	Plan  allocator.Plan
	execs map[graph.SubtaskID]scheduler.ExecutionState
	order []graph.SubtaskID
}

// newExecutionGraph returns a graph whose subtasks are all CREATED.
func newExecutionGraph(generation int, plan allocator.Plan) *ExecutionGraph {
	g := &ExecutionGraph{Generation: generation, Plan: plan, execs: make(map[graph.SubtaskID]scheduler.ExecutionState)}
	for _, a := range plan.Deploy.Assignments {
		id := a.SubtaskID
		g.execs[id] = scheduler.ExecCreated
		g.order = append(g.order, id)
	}
	return g
}

// State returns a subtask's state ("" for one the graph does not have).
func (g *ExecutionGraph) State(id graph.SubtaskID) scheduler.ExecutionState { return g.execs[id] }

// deployed marks every subtask DEPLOYING.
func (g *ExecutionGraph) deployed() {
	for _, id := range g.order {
		g.execs[id] = scheduler.ExecDeploying
	}
}

// update applies a report of this generation and says whether it did: a
// report of another generation, of an unknown or ended subtask, or a
// non-final report of a subtask being cancelled changes nothing.
func (g *ExecutionGraph) update(e scheduler.TaskState) bool {
	prev, ok := g.execs[e.ID]
	if !ok || e.Generation != g.Generation || prev.Terminal() {
		return false
	}
	if prev == scheduler.ExecCanceling && !e.State.Terminal() {
		return false
	}
	g.execs[e.ID] = e.State
	return true
}

// cancelRemaining marks CANCELED the subtasks never deployed and
// CANCELING those running, and returns the latter.
func (g *ExecutionGraph) cancelRemaining() []graph.SubtaskID {
	var ids []graph.SubtaskID
	for _, id := range g.order {
		switch st := g.execs[id]; {
		case st == scheduler.ExecCreated:
			g.execs[id] = scheduler.ExecCanceled
		case !st.Terminal() && st != scheduler.ExecCanceling:
			g.execs[id] = scheduler.ExecCanceling
			ids = append(ids, id)
		}
	}
	return ids
}

// AllTerminal reports whether every subtask ended.
func (g *ExecutionGraph) AllTerminal() bool {
	for _, st := range g.execs {
		if !st.Terminal() {
			return false
		}
	}
	return true
}

// AllFinished reports whether every subtask finished.
func (g *ExecutionGraph) AllFinished() bool {
	for _, st := range g.execs {
		if st != scheduler.ExecFinished {
			return false
		}
	}
	return true
}

// failure is the error a report stands for in a running generation: the
// task's error, an unexpected cancel, or nil.
func failure(e scheduler.TaskState) error {
	switch e.State {
	case scheduler.ExecFailed:
		if e.Err == nil {
			return fmt.Errorf("adaptive: subtask %v failed", e.ID)
		}
		return e.Err
	case scheduler.ExecCanceled:
		return fmt.Errorf("%w: subtask %v", scheduler.ErrTaskCanceled, e.ID)
	}
	return nil
}
