// Package adaptive is Weir's adaptive scheduler (Flink's FLIP-160, with
// reactive mode, FLIP-159, the rescaling policy and rescale-on-checkpoint
// of FLIP-461, and runtime bounds, FLIP-291): it first learns which slots
// the job holds and only then decides each vertex's parallelism, so a job
// runs with fewer slots than it would like, keeps running when
// TaskManagers are lost, and grows when they come.
//
// # What it owns
//
// The decisions, and only them: the state machine below, the rescaling
// policy (rescale.go) and, in subpackage allocator, the SlotAllocator and
// the job's slot pool. Like the default scheduler (package scheduler),
// whose types it reuses (ExecutionState, JobStatus,
// RestartStrategy, TaskState, Deploy, CancelTasks, Terminated), it is
// pure: no goroutines, no clock, no I/O. The JobMaster loop steps a
// Scheduler with events (Step) and performs the actions it hands back
// (Ready); time arrives in events, and timeouts are actions
// (ScheduleTimeout) that come back as Timeout events.
//
// # The state machine
//
// One type per state, each in its own file, each handling the events it
// cares about through a narrow Context and returning the next state
// (Flink's AdaptiveScheduler, which Weir follows):
//
//	Created ──Start──► WaitingForResources ◄──────────────────────────┐
//	   │                 │  desired slots, or sufficient and           │
//	   │                 │  stable (stabilization timeout),            │
//	   │                 │  or wait timeout with sufficient            │
//	   │                 ▼                                             │
//	   │           CreatingExecutionGraph ──slot gone──────────────────┤
//	   │                 │ graph created, plan reserved, deployed      │
//	   │                 ▼                                             │
//	   │             Executing ──failure (strategy: restart)──► Restarting
//	   │              │  │  │  ──rescale (policy)───────────────►  │ (cancel,
//	   │              │  │  │                                      │  backoff)
//	   │              │  │  └──stop──► StopWithSavepoint ──savepoint failed──► Executing
//	   │              │  │                   │ completed, all ended
//	   │              │  └──failure (no restart)──► Failing ──┐
//	   │              └──cancel──► Canceling ──────────────┐  │
//	   ▼                                                   ▼  ▼
//	Finished: FINISHED (all subtasks finished), FAILED, CANCELED
//
// A slot of the running generation that leaves the pool (its TaskManager
// was lost) is a failure of Executing, whether or not its subtasks'
// failures were reported yet, so the restart strategy paces it.
//
// Every state but Finished takes scheduler.Cancel (Created,
// WaitingForResources and CreatingExecutionGraph end CANCELED at once; the
// others go through Canceling). A failure of CreatingExecutionGraph (the
// restore could not be read) and one of Executing or StopWithSavepoint
// (before its savepoint completed) go through the restart strategy
// (restartOrFail). Restarting absorbs the failures of the generation it
// cancels, except an unrecoverable one, which fails the job; Failing
// replaces a cause that is a consequence (scheduler.RootCause). After a
// restart, WaitingForResources starts at once with whatever slots suffice:
// a job that lost a TaskManager restarts at the lower parallelism instead
// of waiting for it.
//
// # Generations
//
// Each deployment is a generation with its own ExecutionGraph: the
// JobMaster is asked to create it (CreateExecutionGraph: read the latest
// checkpoint, redistribute state over key groups at the new parallelism)
// and answers ExecutionGraphCreated; the scheduler then reserves the
// plan's slots (allocator.Pool.Reserve) and deploys it (scheduler.Deploy).
// Reports carry their generation; those of another are ignored.
//
// # Rescaling
//
// In Executing, each change of slots or bounds asks the rescaling policy
// (decideRescale): nothing within the cooldown after the generation
// started (slots that come and go meanwhile cause nothing: no restart
// storm), then a rescale when some vertex can grow by the minimum
// increase or must shrink, or once the maximum delay passed for a smaller
// change. With RescaleOptions.OnCheckpoint the rescale waits for a
// checkpoint it triggers (any completed checkpoint will do), and goes
// ahead after FailedCheckpoints failed ones.
//
// # What callers must do
//
// Step ResourcesChanged with the whole slot pool whenever it changes,
// Start once, ExecutionGraphCreated for each CreateExecutionGraph, every
// subtask report, every checkpoint outcome while checkpointing is on, and
// each ScheduleTimeout's Timeout at its time (late is fine, never early).
// Perform the actions in order after every Step.
package adaptive
