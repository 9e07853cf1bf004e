package checkpoint

import "github.com/weir-engine/weir/internal/graph"

// Plan says, for one checkpoint, which tasks to send the trigger to, which
// tasks must acknowledge it and which are left out because they finished
// (FLIP-147). It is a value: computing it has no side effect.
type Plan struct {
	// TasksToTrigger are the running tasks none of whose producers is
	// still running: the sources while the job runs, and later the new
	// "roots" behind finished tasks. They get the checkpoint by RPC; every
	// other running task gets it as a barrier from a running producer (or
	// as EndOfPartition from a finished one).
	TasksToTrigger []graph.SubtaskID
	// TasksToWaitFor are all running tasks; each must acknowledge.
	TasksToWaitFor []graph.SubtaskID
	// FinishedTasks are the tasks that finished before the trigger. Their
	// state is not part of the checkpoint (FLIP-147 option 3).
	FinishedTasks []graph.SubtaskID
	// FullyFinishedVertices are the IDs of the vertices whose every subtask
	// finished; the checkpoint records them so that a restore skips them.
	FullyFinishedVertices []int
}

// CalculatePlan computes the plan for topology t given which tasks have
// finished. finished is called exactly once per task. It panics if t is
// invalid (see [Topology.Validate]).
//
// The cost is linear in the number of tasks, not quadratic in the edges of
// the execution graph, thanks to the observation in FLIP-147's appendix:
//
//   - a vertex whose every subtask finished has nothing to trigger;
//   - if an ALL_TO_ALL producer vertex still has a running subtask, every
//     subtask of the consumer has a running producer, so none is a root;
//   - if a POINTWISE producer vertex has no finished subtask, every consumer
//     subtask has a running producer (each consumer has at least one);
//   - only when every input passes those checks do we look at single
//     subtasks, and then only through POINTWISE edges (every ALL_TO_ALL
//     producer is known to be finished), which touches each producer-consumer
//     pair of a pointwise edge once: O(max(P, C)) per edge.
func CalculatePlan(t *Topology, finished func(graph.SubtaskID) bool) Plan {
	ix, err := compile(t)
	if err != nil {
		panic(err)
	}
	fin := make([]bool, ix.total)
	for v, vx := range ix.vertices {
		for s := 0; s < vx.Parallelism; s++ {
			fin[ix.offset[v]+s] = finished(graph.SubtaskID{Vertex: vx.ID, Subtask: s})
		}
	}
	return calculatePlan(ix, fin)
}

// calculatePlan is CalculatePlan over a compiled topology and a finished
// flag per flat task number.
func calculatePlan(ix *index, finished []bool) Plan {
	nfin := make([]int, len(ix.vertices))
	total := 0
	for v, vx := range ix.vertices {
		off := ix.offset[v]
		for s := 0; s < vx.Parallelism; s++ {
			if finished[off+s] {
				nfin[v]++
			}
		}
		total += nfin[v]
	}
	p := Plan{
		TasksToWaitFor: make([]graph.SubtaskID, 0, ix.total-total),
		FinishedTasks:  make([]graph.SubtaskID, 0, total),
	}
	for v, vx := range ix.vertices {
		off, par := ix.offset[v], vx.Parallelism
		if nfin[v] == par {
			p.FullyFinishedVertices = append(p.FullyFinishedVertices, vx.ID)
		}
		for s := 0; s < par; s++ {
			if finished[off+s] {
				p.FinishedTasks = append(p.FinishedTasks, ix.task(v, s))
			} else {
				p.TasksToWaitFor = append(p.TasksToWaitFor, ix.task(v, s))
			}
		}
		if nfin[v] == par || !mayHaveRoots(ix, v, nfin) {
			continue
		}
		for s := 0; s < par; s++ {
			if !finished[off+s] && !hasRunningPointwiseProducer(ix, v, s, finished) {
				p.TasksToTrigger = append(p.TasksToTrigger, ix.task(v, s))
			}
		}
	}
	return p
}

// mayHaveRoots is the appendix's fast check for vertex v: false when some
// input proves that every subtask of v has a running producer.
func mayHaveRoots(ix *index, v int, nfin []int) bool {
	for _, e := range ix.inputs[v] {
		par := ix.vertices[e.Source].Parallelism
		switch e.Pattern {
		case AllToAll:
			if nfin[e.Source] < par {
				return false
			}
		case Pointwise:
			if nfin[e.Source] == 0 {
				return false
			}
		}
	}
	return true
}

// hasRunningPointwiseProducer reports whether subtask s of vertex v reads a
// running producer through one of its POINTWISE inputs.
func hasRunningPointwiseProducer(ix *index, v, s int, finished []bool) bool {
	cons := ix.vertices[v].Parallelism
	for _, e := range ix.inputs[v] {
		if e.Pattern != Pointwise {
			continue
		}
		prod := ix.vertices[e.Source].Parallelism
		off := ix.offset[e.Source]
		lo, hi := producerRange(Pointwise, prod, cons, s)
		for j := lo; j < hi; j++ {
			if !finished[off+j] {
				return true
			}
		}
	}
	return false
}
