package jobmaster

import (
	"context"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
)

// Loop is the JobMaster's event loop, which Run drives from a goroutine of
// its own and a simulation drives from its world, one Turn after each of
// its events (with Options.Clock and Options.Executor of the world, the
// JobMaster then starts no goroutine). Only the goroutine that drives it
// may call its methods.
type Loop struct {
	jm      *JobMaster
	ctx     context.Context
	cancel  context.CancelFunc
	unserve func()
	start   time.Time
	// restart and slotWait are the loop's timers (nil: none set).
	restart, slotWait clock.Timer
	result            *Result
}

// Start serves the JobMaster's gateway and starts the job: the
// TaskManagers registered so far offer their slots, the scheduler starts
// and so does the checkpoint schedule. The job runs as Turn is called;
// cancelling ctx cancels the work off the loop (Cancel cancels the job).
func (jm *JobMaster) Start(ctx context.Context) (*Loop, error) {
	l := &Loop{jm: jm, start: jm.clock.Now()}
	unserve, err := jm.Serve()
	if err != nil {
		return nil, err
	}
	l.unserve = unserve
	l.ctx, l.cancel = context.WithCancel(ctx)
	jm.admitEarlyTaskManagers()
	jm.sched.Step(scheduler.Start{WaitForSlots: jm.opts.SlotWait > 0})
	jm.tick(l.ctx)
	return l, nil
}

// Turn handles the queued events and performs what they led to, until the
// queue is empty; it reports the job's result once the job ended (and
// again on every later call).
func (l *Loop) Turn() (Result, bool) {
	for {
		if res, ended := l.act(); ended {
			return res, true
		}
		if !l.handleQueued() {
			return Result{}, false
		}
	}
}

// Cancel cancels the job, as cancelling Run's context does.
func (l *Loop) Cancel() { l.jm.sched.Step(scheduler.Cancel{}) }

// Close stops the loop's timers, abandons a running restore, waits for
// the work off the loop and releases what the job held. The job need not
// have ended.
func (l *Loop) Close() {
	jm := l.jm
	for _, t := range []clock.Timer{l.restart, l.slotWait} {
		if t != nil {
			t.Stop()
		}
	}
	if jm.cp != nil && jm.cp.tick != nil {
		jm.cp.tick.Stop()
	}
	jm.closeGenerations()
	l.cancel()
	jm.abandonRestore()
	jm.closeEnumerators()
	jm.wg.Wait()
	if jm.cp != nil {
		jm.dropUnfinishedShared()
	}
	jm.net.ReleaseJob(jm.jobID, jm.sched.Generation())
	l.unserve()
}

// handleQueued handles the events queued so far; it reports false when
// there were none.
func (l *Loop) handleQueued() bool {
	evs := l.jm.events.PopAll()
	for _, ev := range evs {
		l.jm.handle(l.ctx, ev)
	}
	return len(evs) > 0
}

// act publishes the job's status and performs the scheduler's decisions;
// it reports the result when the job ended.
func (l *Loop) act() (Result, bool) {
	jm := l.jm
	if l.result != nil {
		return *l.result, true
	}
	jm.publish()
	for _, a := range jm.sched.Ready() {
		if jm.ada != nil && jm.actAdaptive(l.ctx, a) {
			continue
		}
		switch a := a.(type) {
		case scheduler.Terminated:
			jm.log.Info("job ended", "status", a.Status, "err", a.Err)
			if jm.cp != nil {
				jm.cp.failSavepoints(fmt.Errorf("jobmaster: the job ended %s before the savepoint completed", a.Status))
			}
			res := Result{JobID: jm.jobID, Status: a.Status, Err: a.Err, Duration: jm.clock.Now().Sub(l.start),
				Vertices: jm.vertexMetrics(), Restarts: jm.restarts}
			if jm.cp != nil {
				res.Checkpoints = jm.cp.stats()
			}
			jm.publish()
			l.result = &res
			return res, true
		case scheduler.ScheduleRestart:
			jm.lastFailure = a.Cause
			jm.log.Warn("job failed, restarting", "generation", a.Generation, "after", a.Delay, "cause", a.Cause)
			jm.net.ReleaseJob(jm.jobID, a.Generation-1)
			l.restart = jm.clock.AfterFunc(a.Delay, func() { jm.events.Push(restartTimer{}) })
		case scheduler.AwaitResources:
			jm.log.Info("waiting for slots", "generation", a.Generation, "for", jm.opts.SlotWait, "why", a.Err)
			if l.slotWait != nil {
				l.slotWait.Stop()
			}
			l.slotWait = jm.clock.AfterFunc(jm.opts.SlotWait, func() { jm.events.Push(slotWaitTimer{a.Generation}) })
		case scheduler.RegionFailover:
			jm.log.Warn("region failed, running it again", "subtasks", a.Rerun, "cause", a.Cause)
			for _, id := range a.Rerun {
				jm.net.ReleaseProducer(jm.jobID, jm.sched.Generation(), id.Vertex, id.Subtask)
			}
		case scheduler.Deploy:
			if l.slotWait != nil {
				l.slotWait.Stop()
			}
			jm.deploy(l.ctx, a)
		case scheduler.CancelTasks:
			if jm.cancelRestore(a.IDs) {
				continue
			}
			gen := jm.sched.Generation()
			for _, id := range a.IDs {
				if te := jm.taskExecutorOf(id); te != nil {
					te.CancelTask(context.Background(), &rpcpb.CancelTaskRequest{Task: jm.taskKey(id)}).OnComplete(
						func(_ *rpcpb.CancelTaskResponse, err error) {
							if err != nil {
								// The cancel did not reach the TaskManager (or
								// its answer did not come back): the report it
								// would send may never come, and the job would
								// wait for it forever. Flink, too, gives up on
								// an execution whose cancel calls fail.
								jm.log.Warn("cancel a subtask", "task", id, "err", err)
								jm.reportEnded(id, gen, scheduler.ExecCanceled, nil)
							}
						})
				}
			}
		}
	}
	return Result{}, false
}
