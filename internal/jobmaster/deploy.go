package jobmaster

import (
	"context"
	"fmt"

	"github.com/weir-engine/weir/internal/alignment"
	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// Deploying a generation takes two steps. On scheduler.Deploy the loop
// starts a goroutine that reads what the generation starts from (the
// checkpoint or savepoint metadata, mapped to each subtask as handles: the
// subtasks read their state themselves, see restoreState) and opens its
// split enumerators, which may reach an external system; the loop goes on
// meanwhile. The goroutine comes back
// with a restoredEvent, and the loop submits the tasks (submit) or fails
// the generation (failGeneration).
//
// While a restore runs, the executions of its generation are DEPLOYING
// but no TaskManager has them: a CancelTasks for them (a cancel of the
// job, or a failure) abandons the restore and reports them CANCELED from
// here, since no TaskManager would. An abandoned restore's event finds
// another (or no) restore current and is dropped.

// restoring is a restore in progress.
type restoring struct {
	deploy scheduler.Deploy
	cancel context.CancelFunc
	// create: the adaptive scheduler's first half of a generation
	// (CreateExecutionGraph), answered with ExecutionGraphCreated, not
	// submitted (see adaptivegen.go).
	create bool
}

// restoredEvent is the outcome of a restore.
type restoredEvent struct {
	r           *restoring
	rs          *restored
	enumerators map[string]op.Enumerator
	alignment   *alignment.Coordinator
	err         error
}

// deploy starts the restore of a generation, restored from a savepoint
// (first generation) or from the latest completed checkpoint (after a
// restart).
func (jm *JobMaster) deploy(ctx context.Context, a scheduler.Deploy) {
	if a.Incremental {
		jm.deployMore(ctx, a)
		return
	}
	jm.startRestore(ctx, a, false)
}

// startRestore starts the restore of a generation; create says it answers
// the adaptive scheduler's CreateExecutionGraph.
func (jm *JobMaster) startRestore(ctx context.Context, a scheduler.Deploy, create bool) {
	jm.abandonRestore()
	sizing, err := jm.sizeChannels(a.Plan)
	if err != nil && create {
		r := &restoring{deploy: a, cancel: func() {}, create: true}
		jm.restoring = r
		jm.events.Push(restoredEvent{r: r, err: err})
		return
	}
	if err != nil {
		jm.failAll(a, err)
		return
	}
	jm.channels = sizing
	// The previous generation has ended: its enumerators serve no one.
	if old := jm.enumerators; len(old) > 0 {
		jm.background(func() { closeEnumerators(jm.log, old) })
	}
	jm.enumerators, jm.alignment = nil, nil
	rctx, cancel := context.WithCancel(ctx)
	r := &restoring{deploy: a, cancel: cancel, create: create}
	jm.restoring = r
	latest, jg := "", jm.graph
	if jm.cp != nil {
		if jm.restartsTasks(a) {
			// No checkpoint may complete after the one picked here: one
			// whose metadata is being written is aborted (and discarded
			// once written), and none is triggered until submit steps
			// TasksRestarted.
			jm.stepCheckpoint(ctx, checkpoint.Restoring{Now: jm.clock.Now()})
		}
		latest = jm.cp.latest
	}
	jm.background(func() {
		ev := restoredEvent{r: r}
		ev.rs, ev.err = jm.restoreState(rctx, jg, a.Generation, latest)
		if ev.err == nil {
			var md *storage.Metadata
			if ev.rs != nil {
				md = ev.rs.md
			}
			ev.alignment, ev.err = newAlignment(jg, md)
			if ev.err == nil {
				ev.enumerators, ev.err = jm.openEnumerators(rctx, jg, md)
			}
		}
		if rctx.Err() != nil {
			// Abandoned, or the job is being cancelled: the loop does not
			// wait for this outcome.
			closeEnumerators(jm.log, ev.enumerators)
			return
		}
		jm.events.Push(ev)
	})
}

// restartsTasks reports whether deploying a replaces tasks the checkpoint
// coordinator knew (a restart, or any generation of the adaptive
// scheduler, which may change the parallelism): the coordinator is told
// Restoring when its restore starts and TasksRestarted when it is
// submitted, and the two must go together.
func (jm *JobMaster) restartsTasks(a scheduler.Deploy) bool {
	return a.Generation > 0 || jm.ada != nil
}

// restoreDone ends the restore of e's generation: it submits the tasks, or
// fails the generation. An outcome of an abandoned restore is dropped.
func (jm *JobMaster) restoreDone(ctx context.Context, e restoredEvent) {
	if e.r != jm.restoring {
		closeEnumerators(jm.log, e.enumerators)
		return
	}
	e.r.cancel()
	jm.restoring = nil
	jm.releaseHeld()
	if e.r.create {
		jm.graphCreated(e)
		return
	}
	if e.err != nil {
		jm.failGeneration(e.r.deploy, e.err)
		return
	}
	jm.enumerators, jm.alignment = e.enumerators, e.alignment
	jm.submit(ctx, e.r.deploy, e.rs)
}

// submit deploys the tasks of a generation that starts from rs (nil: from
// scratch).
func (jm *JobMaster) submit(ctx context.Context, a scheduler.Deploy, rs *restored) {
	jm.fromLatest = fromLatest{}
	if rs != nil && rs.latest {
		jm.fromLatest = fromLatest{generation: a.Generation, location: rs.location}
	}
	if jm.cp != nil && rs != nil {
		if rs.reusable {
			jm.cp.registry.RegisterMetadata(rs.md)
		}
		jm.cp.coord.RestoredFrom(rs.id)
		jm.cp.history.restoredFrom(rs.id, rs.md.Kind == storage.KindSavepoint, rs.location, jm.clock.Now())
	}
	if jm.cp != nil && jm.restartsTasks(a) {
		var finished []graph.SubtaskID
		if rs != nil {
			finished = rs.finished
		}
		ev := checkpoint.TasksRestarted{Now: jm.clock.Now(), Finished: finished}
		if jm.ada != nil {
			// The generation may run at another parallelism.
			ev.Topology = topology(jm.graph)
		}
		jm.stepCheckpoint(ctx, ev)
	}
	// Every subtask is placed before any is deployed: a consumer's
	// descriptor names where its producers run (see dataAddress).
	for _, as := range a.Plan.Assignments {
		jm.placed[as.SubtaskID] = as.Slot.TaskManager
	}
	for _, as := range a.Plan.Assignments {
		id := as.SubtaskID
		var init taskmanager.Init
		if rs != nil {
			init = rs.inits[id]
		}
		d := jm.descriptor(a.Generation, id, as.Slot, init)
		if _, ok := jm.tms[as.Slot.TaskManager]; !ok {
			// Lost while the generation restored: the scheduler failed
			// its executions already.
			jm.reportEnded(id, a.Generation, scheduler.ExecFailed, fmt.Errorf("deploy %v: %w: %s", id, scheduler.ErrTaskManagerLost, as.Slot.TaskManager))
			continue
		}
		gen := a.Generation
		jm.taskExecutor(as.Slot.TaskManager).SubmitTask(context.Background(), d).OnComplete(
			func(r *rpcpb.SubmitTaskResponse, err error) {
				if err == nil {
					err = rpc.DecodeError(r.GetError())
				}
				if err != nil {
					jm.reportEnded(id, gen, scheduler.ExecFailed, fmt.Errorf("deploy %v to %v: %w", id, as.Slot, err))
				}
			})
	}
}

// failGeneration fails a generation that could not be deployed: nothing
// runs, so every subtask fails with err, marked unrecoverable so that no
// restart strategy loops on it, and the scheduler sees them all end.
func (jm *JobMaster) failGeneration(a scheduler.Deploy, err error) {
	jm.failAll(a, fmt.Errorf("%w: %w", scheduler.ErrUnrecoverable, err))
}

// failAll fails every subtask of a generation that was not deployed with
// err.
func (jm *JobMaster) failAll(a scheduler.Deploy, err error) {
	jm.log.Error("deploy failed", "err", err)
	for _, as := range a.Plan.Assignments {
		id := as.SubtaskID
		jm.reportEnded(id, a.Generation, scheduler.ExecFailed, err)
	}
}

// reportEnded queues the end of a subtask that no TaskManager runs.
func (jm *JobMaster) reportEnded(id graph.SubtaskID, generation int, state scheduler.ExecutionState, err error) {
	jm.events.Push(taskmanager.Report{TaskState: scheduler.TaskState{
		ID: id, Generation: generation, State: state, Now: jm.clock.Now(), Err: err,
	}})
}

// cancelRestore handles a CancelTasks while a restore runs: the subtasks
// are on no TaskManager yet, so the restore is abandoned and they are
// reported CANCELED here. It reports false when no restore runs.
func (jm *JobMaster) cancelRestore(ids []graph.SubtaskID) bool {
	r := jm.restoring
	if r == nil {
		return false
	}
	jm.log.Info("restore abandoned", "generation", r.deploy.Generation)
	jm.abandonRestore()
	for _, id := range ids {
		jm.reportEnded(id, r.deploy.Generation, scheduler.ExecCanceled, nil)
	}
	return true
}

// abandonRestore stops waiting for the running restore, if any.
func (jm *JobMaster) abandonRestore() {
	if jm.restoring != nil {
		jm.restoring.cancel()
		jm.restoring = nil
		jm.releaseHeld()
	}
}

// hold keeps back, while a restore runs, the events that would reach the
// checkpoint coordinator before the restored generation does: a trigger
// (a tick or a savepoint request) needs the restored checkpoint id and
// running tasks, and the coordinator, which Restoring told to trigger
// nothing, should see the old generation's last acknowledgements and
// Persisted answers only once TasksRestarted started the new one. It
// reports whether ev was held.
func (jm *JobMaster) hold(ev any) bool {
	if jm.restoring == nil {
		return false
	}
	switch ev.(type) {
	case tickEvent, SavepointRequest, persistedEvent, ackEvent, declineEvent, endOfDataEvent, writerEvent:
		jm.held = append(jm.held, ev)
		return true
	}
	return false
}

// releaseHeld queues the held events again, in their order.
func (jm *JobMaster) releaseHeld() {
	for _, ev := range jm.held {
		jm.events.Push(ev)
	}
	jm.held = nil
}

// deployMore submits subtasks that join the running generation (a later
// stage of a batch job): its restore and enumerators are done already.
func (jm *JobMaster) deployMore(ctx context.Context, a scheduler.Deploy) {
	sizing, err := jm.sizeChannels(a.Plan)
	if err != nil {
		jm.failAll(a, err)
		return
	}
	jm.channels = sizing
	jm.submit(ctx, a, nil)
}

// blockingUpstream maps each vertex of a job with blocking exchanges to
// the vertices it reads from, for stage-by-stage scheduling; nil when the
// job has none.
func blockingUpstream(jg *graph.JobGraph) map[int][]int {
	up := map[int][]int{}
	blocking := false
	for _, e := range jg.Edges {
		blocking = blocking || e.Blocking
		up[e.Target.ID] = append(up[e.Target.ID], e.Source.ID)
	}
	if !blocking {
		return nil
	}
	return up
}
