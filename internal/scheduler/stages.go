package scheduler

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// Stage-by-stage scheduling (batch jobs, whose exchanges are all
// blocking): every subtask is a pipelined region of its own, deployed once
// every subtask of the vertices it reads from has FINISHED (their result
// partitions are complete on disk), into any slot no running subtask
// holds. A job with more subtasks than slots therefore runs, a few
// subtasks at a time. The first Deploy of a generation goes through the
// JobMaster's restore; the later ones add subtasks to the running
// generation (Deploy.Incremental).

// A failure fails over its region only (Flink's RestartPipelinedRegion
// strategy): the failed subtask is deployed again, at once, if the restart
// strategy allows, in the same generation, reading the blocking partitions
// its producers left on disk; when it failed because an input partition
// was lost or damaged, the subtasks of the vertices it reads from run
// again first, and write those partitions anew. Nothing else is cancelled.

// stages is the state of stage-by-stage scheduling.
type stages struct {
	// upstream maps a vertex to the vertices it reads from.
	upstream map[int][]int
	// busy maps a slot to the subtask running in it.
	busy map[slots.ID]graph.SubtaskID
	// where maps a subtask to its slot while it runs.
	where map[graph.SubtaskID]slots.ID
}

// SetStages switches the scheduler to stage-by-stage scheduling before
// Start: upstream maps each vertex to the vertices it reads from across
// blocking exchanges.
func (s *Scheduler) SetStages(upstream map[int][]int) {
	s.stages = &stages{upstream: upstream, busy: map[slots.ID]graph.SubtaskID{}, where: map[graph.SubtaskID]slots.ID{}}
}

// placeStages starts a generation: it needs one slot.
func (s *Scheduler) placeStages() {
	if len(s.free) == 0 {
		err := fmt.Errorf("%w: the job needs at least 1 slot, 0 are free", slots.ErrNotEnoughSlots)
		if s.waitForSlots {
			s.waitErr = err
			if !s.waiting {
				s.waiting = true
				s.ready = append(s.ready, AwaitResources{Generation: s.pendingGeneration(), Err: err})
			}
			return
		}
		s.failure = NewRootCause(err, nil)
		s.terminate(Failed)
		return
	}
	s.waiting, s.waitErr = false, nil
	if s.status == Restarting {
		s.generation++
		s.failure = RootCause{}
		for _, id := range s.order {
			s.execs[id] = ExecCreated
		}
	}
	clear(s.stages.busy)
	clear(s.stages.where)
	s.plan = slots.Plan{}
	s.status = Running
	s.deployReady(false)
}

// deployReady deploys the subtasks whose inputs are complete into idle
// slots.
func (s *Scheduler) deployReady(incremental bool) {
	st := s.stages
	var idle []slots.ID
	for _, id := range slots.Spread(s.free) {
		if _, ok := st.busy[id]; !ok {
			idle = append(idle, id)
		}
	}
	var plan slots.Plan
	for _, id := range s.order {
		if len(idle) == 0 {
			break
		}
		if s.execs[id] != ExecCreated || !s.inputsFinished(id.Vertex) {
			continue
		}
		slot := idle[0]
		idle = idle[1:]
		st.busy[slot], st.where[id] = id, slot
		s.execs[id] = ExecDeploying
		a := slots.Assignment{SubtaskID: id, Slot: slot}
		plan.Slots = append(plan.Slots, slot)
		plan.Assignments = append(plan.Assignments, a)
		s.plan.Assignments = append(s.plan.Assignments, a)
	}
	if len(plan.Assignments) > 0 {
		s.ready = append(s.ready, Deploy{Plan: plan, Generation: s.generation, Incremental: incremental})
	}
}

// inputsFinished reports whether every subtask of the vertices v reads
// from has finished.
func (s *Scheduler) inputsFinished(v int) bool {
	for _, up := range s.stages.upstream[v] {
		for _, id := range s.order {
			if id.Vertex == up && s.execs[id] != ExecFinished {
				return false
			}
		}
	}
	return true
}

// stageEnded frees the slot of a subtask that ended and, while the
// generation runs, deploys what became ready.
func (s *Scheduler) stageEnded(id graph.SubtaskID) {
	st := s.stages
	if slot, ok := st.where[id]; ok {
		delete(st.busy, slot)
		delete(st.where, id)
	}
	if s.status == Running && !s.stopping {
		s.deployReady(true)
	}
}

// regionFailover handles the failure of subtask id of a running
// generation; it reports false when the job fails instead (an
// unrecoverable cause: the caller's ordinary path fails the job).
func (s *Scheduler) regionFailover(id graph.SubtaskID, cause error, now time.Time) bool {
	if Unrecoverable(cause) {
		return false
	}
	if _, ok := s.restart.OnFailure(now); !ok {
		s.failure = NewRootCause(cause, nil)
		if _, none := s.restart.(NoRestart); !none {
			s.failure = NewRootCause(cause, RestartsExhausted(s.restart))
		}
		s.status = Failing
		s.cancelRemaining()
		return true
	}
	s.execs[id] = ExecCreated
	s.RegionRestarts++
	rerun := []graph.SubtaskID{id}
	if errors.Is(cause, network.ErrCorruptPartition) || errors.Is(cause, network.ErrPartitionNotFound) {
		for _, up := range s.stages.upstream[id.Vertex] {
			for _, p := range s.order {
				if p.Vertex == up && s.execs[p] == ExecFinished {
					s.execs[p] = ExecCreated
					rerun = append(rerun, p)
				}
			}
		}
	}
	s.ready = append(s.ready, RegionFailover{Rerun: rerun, Cause: cause})
	return true
}
