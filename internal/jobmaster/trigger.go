package jobmaster

import (
	"context"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/network"
)

// savepointWriter goes on with a savepoint trigger once its writer was
// created off the loop. A savepoint that ended meanwhile (it timed out, or
// a failover aborted it) gets its directory removed instead.
func (jm *JobMaster) savepointWriter(ctx context.Context, e writerEvent) {
	cp := jm.cp
	id := e.trigger.ID
	again := cp.again[id]
	delete(cp.again, id)
	if dir, ok := cp.dirs[id]; !ok || dir != nil {
		if e.dir != nil {
			jm.background(func() { _ = e.dir.Abort(context.Background()) })
		}
		return
	}
	delete(cp.dirs, id)
	jm.startTrigger(ctx, e.trigger, e.dir, e.err)
	if dir := cp.dirs[id]; dir != nil {
		for _, a := range again {
			jm.sendTrigger(a, dir.Location())
		}
	}
	if p, ok := cp.persist[id]; ok {
		delete(cp.persist, id)
		if _, pending := cp.dirs[id]; pending {
			jm.performCheckpoint(ctx, p)
		}
	}
}

// startTrigger starts checkpoint a with its writer dir (or its error):
// it snapshots the split enumerators and sends the trigger, with the
// directory the tasks write into, to every task the plan names.
func (jm *JobMaster) startTrigger(ctx context.Context, a checkpoint.Trigger, dir *storage.CheckpointDir, err error) {
	cp := jm.cp
	if err != nil {
		jm.log.Error("create checkpoint directory", "id", a.ID, "err", err)
		cp.savepointEnded(a.ID, a.Kind, "", err)
		// The coordinator learns of it as from a task that could not
		// write: the checkpoint fails now rather than at its timeout.
		jm.declineAll(a, err)
		return
	}
	if err := jm.snapshotEnumerators(a.ID); err != nil {
		jm.log.Error("checkpoint: enumerators", "id", a.ID, "err", err)
		jm.background(func() { _ = dir.Abort(context.Background()) })
		jm.declineAll(a, err)
		return
	}
	cp.dirs[a.ID] = dir
	jm.sendTrigger(a, dir.Location())
}

// triggerAgain sends a pending checkpoint to tasks that became its roots
// since its trigger (a.Again), naming the directory its first trigger
// named; the re-trigger of a savepoint whose writer is still being
// created waits for it. A checkpoint with no directory any more ended,
// or its trigger failed and its decline is queued: nothing goes out.
func (jm *JobMaster) triggerAgain(a checkpoint.Trigger) {
	dir, pending := jm.cp.dirs[a.ID]
	switch {
	case !pending:
		jm.log.Debug("re-trigger of a checkpoint without a directory", "id", a.ID)
	case dir == nil:
		jm.cp.again[a.ID] = append(jm.cp.again[a.ID], a)
	default:
		jm.sendTrigger(a, dir.Location())
	}
}

// sendTrigger sends the trigger RPC of a, whose tasks write into
// location, to its tasks.
func (jm *JobMaster) sendTrigger(a checkpoint.Trigger, location string) {
	b := network.CheckpointBarrier{
		ID: a.ID, Timestamp: a.Timestamp.UnixMilli(), Savepoint: a.Kind.IsSavepoint(), Drain: a.Kind == checkpoint.SavepointDrain,
		Terminate: a.Kind == checkpoint.SavepointTerminate,
		Unaligned: jm.cp.opts.Unaligned && !a.Kind.IsSavepoint(), AlignedTimeoutMillis: jm.cp.opts.AlignedTimeout.Milliseconds(),
		Location: location,
	}
	jm.log.Debug("trigger checkpoint", "id", a.ID, "cause", a.Cause, "tasks", len(a.Tasks), "again", a.Again)
	for _, t := range a.Tasks {
		// A subtask that is no longer running has finished or failed,
		// and its report is on its way: the coordinator learns of it
		// from there (a finished task without its snapshot fails the
		// checkpoint at once, or, if it was waiting for its final
		// checkpoint, the trigger goes on to its consumers; a failure
		// aborts it), so a failed trigger needs no decline of its own.
		jm.triggerTask(t, b)
	}
}

// declineAll queues a decline of checkpoint a by its first task, which
// fails it.
func (jm *JobMaster) declineAll(a checkpoint.Trigger, err error) {
	if len(a.Tasks) > 0 {
		jm.events.Push(declineEvent{id: a.ID, task: a.Tasks[0], attempt: jm.sched.Generation(), err: err})
	}
}
