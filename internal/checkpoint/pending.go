package checkpoint

import (
	"time"

	"github.com/weir-engine/weir/internal/graph"
)

// pending is a checkpoint between its trigger and its end, Flink's
// PendingCheckpoint: the plan it was triggered with, which of the tasks it
// waits for have acknowledged, and the state handles they sent.
type pending struct {
	id        int64
	kind      Kind
	cause     Cause
	timestamp time.Time
	deadline  time.Time
	plan      Plan
	// waiting holds the flat numbers of the tasks that have yet to
	// acknowledge.
	waiting map[int]struct{}
	// triggered holds the flat numbers of the tasks the trigger RPC went
	// to: the plan's roots, and those that became roots later (retrigger).
	triggered map[int]struct{}
	states    map[graph.SubtaskID]any
	// persisting is set once every task acknowledged and Persist went out:
	// the checkpoint now only waits for Persisted and no longer expires.
	persisting bool
}

func newPending(id int64, kind Kind, cause Cause, now time.Time, timeout time.Duration, ix *index, plan Plan) *pending {
	p := &pending{
		id:        id,
		kind:      kind,
		cause:     cause,
		timestamp: now,
		deadline:  now.Add(timeout),
		plan:      plan,
		waiting:   make(map[int]struct{}, len(plan.TasksToWaitFor)),
		triggered: make(map[int]struct{}, len(plan.TasksToTrigger)),
		states:    make(map[graph.SubtaskID]any, len(plan.TasksToWaitFor)),
	}
	for _, t := range plan.TasksToWaitFor {
		f, _ := ix.flat(t)
		p.waiting[f] = struct{}{}
	}
	for _, t := range plan.TasksToTrigger {
		f, _ := ix.flat(t)
		p.triggered[f] = struct{}{}
	}
	return p
}

// ack records task's state and reports whether it was awaited. A second
// ack from the same task, or one from a task the checkpoint does not wait
// for, changes nothing.
func (p *pending) ack(flat int, task graph.SubtaskID, state any) bool {
	if _, ok := p.waiting[flat]; !ok {
		return false
	}
	delete(p.waiting, flat)
	p.states[task] = state
	return true
}

// finishedWithoutAck stops waiting for a task that finished after its
// final checkpoint and records it among the checkpoint's finished tasks,
// and its vertex among the fully finished ones if it was the vertex's last
// running subtask: a restore must not run the vertex again, as it would if
// it were restored with the empty state of its finished subtasks.
func (p *pending) finishedWithoutAck(ix *index, flat int, task graph.SubtaskID) {
	delete(p.waiting, flat)
	p.plan.FinishedTasks = append(p.plan.FinishedTasks, task)
	n := 0
	for _, t := range p.plan.FinishedTasks {
		if t.Vertex == task.Vertex {
			n++
		}
	}
	if n == ix.vertices[ix.pos[task.Vertex]].Parallelism {
		p.plan.FullyFinishedVertices = append(p.plan.FullyFinishedVertices, task.Vertex)
	}
}

// newRoots returns the roots of plan that the checkpoint still waits for
// and has not sent the trigger to, and records them as triggered.
func (p *pending) newRoots(ix *index, plan Plan) []graph.SubtaskID {
	var out []graph.SubtaskID
	for _, t := range plan.TasksToTrigger {
		f, _ := ix.flat(t)
		if _, done := p.triggered[f]; done || !p.awaits(f) {
			continue
		}
		p.triggered[f] = struct{}{}
		out = append(out, t)
	}
	return out
}

// awaits reports whether the checkpoint still waits for the task's ack.
func (p *pending) awaits(flat int) bool {
	_, ok := p.waiting[flat]
	return ok
}

// fullyAcked reports whether every task acknowledged.
func (p *pending) fullyAcked() bool { return len(p.waiting) == 0 }

// persist is the action that hands the acknowledged checkpoint over to the
// caller.
func (p *pending) persist() Persist {
	return Persist{
		ID:                    p.id,
		Kind:                  p.kind,
		Timestamp:             p.timestamp,
		States:                p.states,
		Finished:              p.plan.FinishedTasks,
		FullyFinishedVertices: p.plan.FullyFinishedVertices,
	}
}

// coversEndOfData reports whether the checkpoint serves as the "final
// checkpoint" of tasks that reached end of data before it was triggered:
// checkpoints and stop-with-savepoint do. A plain savepoint does not, so
// the end-of-data checkpoint is still triggered after one: a savepoint
// belongs to the user and should not be what commits a sink's last data
// (whether a task exits on a savepoint's NotifyComplete is the task's call).
func (p *pending) coversEndOfData() bool { return p.kind != Savepoint }
