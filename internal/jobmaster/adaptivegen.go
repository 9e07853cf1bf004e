package jobmaster

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// generations is what the loop keeps of the adaptive scheduler's
// generations.
type generations struct {
	// created is the generation restored and not yet deployed.
	created *createdGeneration
	// release drops the function spec of the graph deployed last when it
	// was rescaled (nil: the job's own graph, embedded by serve).
	release func()
	// rescaling: the next Restarting is a rescale, not a restart.
	rescaling bool
	// restartUnsaid: the restart in progress began with a consequence and
	// is logged when it proceeds (see adaptive.Transitioned).
	restartUnsaid bool
	// timers are the timeouts in flight; Close stops them.
	timers []clock.Timer
	// rescaled says how long each rescale took, from the decision to the
	// new generation executing, in the order of the scheduler's Rescales;
	// rescale is the one in progress.
	rescaled []time.Duration
	rescale  *adaptive.Rescaling
	// rescaleAt is when the loop took the rescale's decision, on its
	// clock (the scheduler's times are those of the events it saw last).
	rescaleAt time.Time
}

// createdGeneration is a generation whose restore is done.
type createdGeneration struct {
	deploy scheduler.Deploy
	rs     *restored
}

// actAdaptive performs an action of the adaptive scheduler; it reports
// false for the actions it shares with the default one.
func (jm *JobMaster) actAdaptive(ctx context.Context, a any) bool {
	switch a := a.(type) {
	case adaptive.CreateExecutionGraph:
		jm.createExecutionGraph(ctx, a)
	case scheduler.Deploy:
		jm.deployCreated(ctx, a)
	case adaptive.ScheduleTimeout:
		t := a.Timeout
		jm.gens.timers = append(jm.gens.timers, jm.clock.AfterFunc(a.At.Sub(jm.clock.Now()), func() { jm.events.Push(adaptiveTimeout{t}) }))
	case adaptive.TriggerCheckpoint:
		jm.log.Info("checkpoint for a rescale", "reason", a.Reason)
		jm.stepCheckpoint(ctx, checkpoint.TriggerRequest{Now: jm.clock.Now(), Kind: checkpoint.Checkpoint})
	case adaptive.TriggerSavepoint:
		// requestSavepoint triggered it already, with its target.
	case adaptive.Transitioned:
		jm.log.Info("scheduler state", "from", a.From, "to", a.To)
		if a.To == "Restarting" {
			// As the default scheduler says it (ScheduleRestart), for the
			// CLI's restart line and the REST API's root cause. A restart
			// started by a consequence (a producer whose channel the failed
			// consumer released) is said when it proceeds, by which time
			// the consumer's own failure has replaced it as the cause.
			if !jm.gens.rescaling {
				if scheduler.IsConsequence(jm.ada.s.LastFailure()) {
					jm.gens.restartUnsaid = true
				} else {
					jm.sayRestart()
				}
			}
			jm.gens.rescaling = false
		}
		if a.From == "Restarting" && a.To == "WaitingForResources" && jm.gens.restartUnsaid {
			jm.gens.restartUnsaid = false
			jm.sayRestart()
		}
	case adaptive.Rescaling:
		jm.gens.rescaling = true
		jm.gens.rescale, jm.gens.rescaleAt = &a, jm.clock.Now()
		jm.log.Info("rescaling", "from", a.From, "to", a.To, "reason", a.Reason)
	case adaptive.Rejected:
		jm.log.Warn("scheduler request rejected", "request", fmt.Sprintf("%T", a.Request), "err", a.Err)
	default:
		return false
	}
	return true
}

// rescaleDone ends the rescale in progress once the scheduler executes
// the new generation: its duration joins the history, and a line says
// it. publish calls it, so that the status that shows the job executing
// at its new parallelism shows how long the rescale took too.
func (jm *JobMaster) rescaleDone() {
	r := jm.gens.rescale
	if r == nil || jm.ada.s.State() != "Executing" {
		return
	}
	took := jm.clock.Now().Sub(jm.gens.rescaleAt)
	jm.gens.rescaled = append(jm.gens.rescaled, took)
	jm.gens.rescale = nil
	jm.log.Info("job rescaled", "from", r.From, "to", r.To, "reason", r.Reason, "took", took)
}

// createExecutionGraph starts a generation at the plan's parallelism:
// its graph, embedded for the TaskManagers when rescaled, and its restore
// (the state redistributed over the new parallelism, see restoreFrom),
// which graphCreated answers.
func (jm *JobMaster) createExecutionGraph(ctx context.Context, a adaptive.CreateExecutionGraph) {
	if a.Generation > 0 {
		jm.net.ReleaseJob(jm.jobID, jm.ada.Generation())
	}
	jm.gens.created = nil
	jm.placed = make(map[graph.SubtaskID]string)
	jm.metrics = make(map[graph.SubtaskID]taskmanager.Report)
	jm.ada.created(a.Generation, a.Plan)
	d := scheduler.Deploy{Plan: a.Plan.Deploy, Generation: a.Generation}
	if err := jm.useGraph(a.Generation, a.Plan.Parallelism); err != nil {
		r := &restoring{deploy: d, cancel: func() {}, create: true}
		jm.abandonRestore()
		jm.restoring = r
		jm.events.Push(restoredEvent{r: r, err: err})
		return
	}
	jm.log.Info("creating execution graph", "generation", a.Generation, "parallelism", a.Plan.Parallelism)
	jm.startRestore(ctx, d, true)
}

// useGraph makes the job's graph at parallelism par that of the next
// generation, and its function spec the one deployments name.
func (jm *JobMaster) useGraph(gen int, par map[int]int) error {
	if jm.gens.release != nil {
		jm.gens.release()
		jm.gens.release = nil
	}
	if sameParallelism(jm.base, par) {
		jm.graph, jm.function = jm.base, jm.baseFunction
		return nil
	}
	jg, err := graph.Rescaled(jm.base, par)
	if err != nil {
		return fmt.Errorf("jobmaster: %w", err)
	}
	spec, release, err := jm.rescaledFunction(gen, jg, par)
	if err != nil {
		return fmt.Errorf("jobmaster: %w", err)
	}
	jm.graph, jm.function, jm.gens.release = jg, spec, release
	return nil
}

// rescaledFunction is the spec of generation gen's graph jg, rescaled to
// par: a registered job's TaskManagers build it again and rescale it (as
// processes of a cluster must: they share no table with the JobManager);
// any other graph is embedded under the generation's name until release.
func (jm *JobMaster) rescaledFunction(gen int, jg *graph.JobGraph, par map[int]int) (*rpcpb.FunctionSpec, func(), error) {
	if r := jm.opts.Registered; r != nil {
		spec := funcspec.Registered(funcspec.WithParallelism(r, par), jg)
		return spec, func() { jm.opts.Functions.Forget(spec) }, nil
	}
	return jm.opts.Functions.Embed(fmt.Sprintf("%s#%d", jm.jobID, gen), jg)
}

// sameParallelism reports whether jg runs every vertex at par's.
func sameParallelism(jg *graph.JobGraph, par map[int]int) bool {
	cur := make(map[int]int, len(jg.Vertices))
	for _, v := range jg.Vertices {
		cur[v.ID] = v.Parallelism
	}
	return maps.Equal(cur, par)
}

// graphCreated answers a CreateExecutionGraph with the restore's outcome;
// an error is unrecoverable, as for the default scheduler (see
// failGeneration), so that no restart loops on it.
func (jm *JobMaster) graphCreated(e restoredEvent) {
	ev := adaptive.ExecutionGraphCreated{Generation: e.r.deploy.Generation, Now: jm.clock.Now()}
	if e.err != nil {
		jm.log.Error("create execution graph", "generation", ev.Generation, "err", e.err)
		ev.Err = scheduler.MarkUnrecoverable(e.err)
		closeEnumerators(jm.log, e.enumerators)
	} else {
		jm.gens.created = &createdGeneration{deploy: e.r.deploy, rs: e.rs}
		jm.enumerators, jm.alignment = e.enumerators, e.alignment
	}
	jm.sched.Step(ev)
}

// deployCreated submits the tasks of the created generation a deploys.
func (jm *JobMaster) deployCreated(ctx context.Context, a scheduler.Deploy) {
	c := jm.gens.created
	jm.gens.created = nil
	if c == nil || c.deploy.Generation != a.Generation {
		jm.failAll(a, fmt.Errorf("jobmaster: generation %d deployed before it was created", a.Generation))
		return
	}
	jm.ada.deployed()
	jm.submit(ctx, a, c.rs)
}

// closeGenerations stops the timeouts and drops a rescaled graph.
func (jm *JobMaster) closeGenerations() {
	for _, t := range jm.gens.timers {
		t.Stop()
	}
	jm.gens.timers = nil
	if jm.gens.release != nil {
		jm.gens.release()
		jm.gens.release = nil
	}
}

// adaptiveCheckpointFailed tells the adaptive scheduler of a failed
// checkpoint (a rescale waiting for one goes ahead after a few) or a
// failed stop-with-savepoint's savepoint (the job goes on).
func (jm *JobMaster) adaptiveCheckpointFailed(a checkpoint.Failed) {
	now := jm.clock.Now()
	switch a.Kind {
	case checkpoint.SavepointTerminate, checkpoint.SavepointDrain:
		jm.sched.Step(adaptive.SavepointFailed{Err: a.Reason, Now: now})
	case checkpoint.Checkpoint:
		if a.ID > 0 {
			jm.sched.Step(adaptive.CheckpointFailed{Err: a.Reason, Now: now})
		}
	}
}

// SlotBounds are the slots the job declares to the ResourceManager: at
// least lo to run, at most hi. With the default scheduler both are its
// highest parallelism (every vertex shares slots); with the adaptive one,
// what runs every vertex at its lower and at its upper bound.
func (jm *JobMaster) SlotBounds() (lo, hi int) {
	if jm.ada != nil {
		return jm.ada.slotBounds()
	}
	for _, v := range jm.base.Vertices {
		hi = max(hi, v.Parallelism)
	}
	return hi, hi
}

// sayRestart counts a restart and logs it with the adaptive scheduler's
// latest failure as its cause.
func (jm *JobMaster) sayRestart() {
	jm.restarts++
	jm.lastFailure = jm.ada.s.LastFailure()
	jm.log.Warn("job failed, restarting", "attempt", jm.restarts, "cause", jm.lastFailure)
}
