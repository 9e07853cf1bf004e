// Package checkpoint is the JobMaster's checkpoint coordinator and the
// trigger plan of FLIP-147 (checkpoints after tasks finished), written as a
// pure state machine in the way etcd's raft is: no goroutines, no locks, no
// clock, no I/O. Time is an input.
//
// # What it owns
//
//   - When to trigger: periodic checkpoints (Interval, MinPauseBetween,
//     MaxConcurrent), savepoint and checkpoint requests, and the
//     end-of-data checkpoints that let bounded jobs end promptly.
//   - Whom to trigger: [CalculatePlan] finds the running tasks with no
//     running producer (the "roots") in time linear in the number of tasks,
//     with the algorithm of FLIP-147's appendix.
//   - Each pending checkpoint: which tasks it waits for, their acks and
//     state handles (opaque to this package), its timeout.
//   - How it ends: complete (after the caller persisted the metadata), or
//     fail on decline, timeout, storage error, subsumption, failover, or a
//     task that finished without acknowledging.
//   - Consecutive failure counting (Flink's CheckpointFailureManager) and
//     the retention of completed checkpoints.
//
// Not here: writing metadata and state (internal/checkpoint/storage and the
// JobMaster), restoring, the UnionListState rule and the restore checks of
// FLIP-147, and the task side (barriers, EndOfData, waiting for the final
// checkpoint).
//
// # What the caller (the JobMaster loop) must do
//
// Create the coordinator with [New] when the job is scheduled, then, from
// the one goroutine that owns it:
//
//  1. Step a [Tick] when the job starts running: it starts the periodic
//     schedule (the first periodic checkpoint is due one Interval later).
//  2. Step every event as it arrives: [TriggerRequest] from the REST API
//     or the CLI; [Ack] and [Decline] from tasks; [TaskEndOfData] and
//     [TaskFinished] from task state reports; [Restoring] when a failover
//     is about to pick the checkpoint to restore from, [TasksRestarted]
//     once it restored the tasks; [Persisted] when a Persist was done.
//     Give each event the current time (Ack, Decline and Persisted may
//     omit it). Step returns an error only for malformed events (an
//     unknown task, a Persisted for a checkpoint that never asked for one);
//     late or unknown acks and declines are normal and ignored.
//  3. After each Step, call [Coordinator.Ready] and perform the actions in
//     the order given (below).
//
// The actions:
//
//   - [Trigger]: send the trigger RPC to each task in Tasks (with Again,
//     the checkpoint is pending already: send the RPC, nothing else).
//   - [Persist]: write the metadata (states, finished tasks, fully finished
//     vertices), then Step Persisted with the location or the error. Until
//     then the checkpoint is pending (it occupies a MaxConcurrent slot) but
//     no longer expires.
//   - [NotifyComplete], [NotifyAborted]: send them to the listed tasks
//     (tasks waiting for their final checkpoint exit on NotifyComplete).
//   - [Completed]: record it: a checkpoint as the latest one (restores,
//     REST), a savepoint as the answer to the user's request.
//   - [Failed]: report it; ID 0 means a TriggerRequest was refused.
//   - [JobFailure]: fail the job through the restart strategy; the
//     coordinator carries on (and may trigger) until Restoring.
//   - [Subsumed]: the retained-checkpoint window moved; discard those.
//   - [Discard]: delete metadata written for a checkpoint that was aborted
//     while being persisted.
//   - [ScheduleTick]: keep one timer; reset it to At (zero: stop it) and
//     Step a Tick when it fires. Ticks that come early or late are fine:
//     timeouts and triggers are evaluated at the Now the events carry.
//
// A savepoint request is answered in the very next Ready, by a Trigger with
// Cause CauseRequest or a Failed with ID 0, so the caller can pair requests
// and checkpoint ids without an id of its own.
//
// # Rules
//
// Periodic: due every Interval; a due checkpoint waits for a free slot
// (fewer than MaxConcurrent pending, savepoints included) and for
// MinPauseBetween after the last completion, then goes out at once. Missed
// periods are not caught up. A manual checkpoint request queues for a free
// slot only. A savepoint (any kind) goes out at once. These are Flink's
// rules.
//
// Ending: a checkpoint completes when every task it waits for acked and the
// caller persisted it. A decline or the timeout fails it. Completing
// checkpoint n fails the pending checkpoints below n (savepoints are
// neither subsumed nor retained: they belong to the user) and reports the
// completed checkpoints beyond Retained as Subsumed. Failures count as in
// Flink: declines, expiries and storage errors of checkpoints (not
// savepoints) newer than the last completed one; a completion resets the
// count, and one more than TolerableFailures emits JobFailure.
//
// Finished tasks (FLIP-147): the plan triggers the roots, waits for every
// running task and records the finished ones and the fully finished
// vertices; their state is not part of the checkpoint. When a task finishes
// while a checkpoint waits for its ack, the checkpoint fails at once
// (ErrTaskFinished, not counted), instead of at the timeout, as Flink 1.14
// does; except when the task had reported EndOfData before the checkpoint
// was triggered: a task waiting for its final checkpoint takes every
// checkpoint triggered in the meantime, so its ack is on its way (the
// finish report may overtake it), or, if its report says it took no
// snapshot for the checkpoint (the trigger came after it exited on the
// completion of its final one), it is recorded as finished in it, and the
// tasks that became roots by its finishing get the trigger (Again): no
// barrier of it left the task. Finishing cancels nothing else.
//
// # Choices where FLIP-147 leaves one
//
// Final checkpoint at once. When every task reported EndOfData or finished
// (and some still run, waiting), and FinalCheckpointOnEndOfData is set,
// a checkpoint is triggered in the same Step, ignoring Interval and
// MinPauseBetween, unless a checkpoint triggered after the last EndOfData
// is already pending or completed. It still respects MaxConcurrent: the
// pending checkpoints were triggered before the last EndOfData and cannot
// serve, so it goes out as soon as one ends. If it fails, the next one goes
// out at once too. A plain savepoint does not count as a final checkpoint
// (a stop-with-savepoint does, and while one is pending nothing else is
// triggered). Nothing is triggered for end of data when checkpointing is
// disabled, as in Flink.
//
// Regions, beyond Flink. A pipelined region is a connected component of the
// execution graph: subtasks linked by the channels of any edge (all Weir
// edges are pipelined). We compute it over subtasks, not vertices, as
// Flink's scheduler does, so independent pointwise lanes are separate
// regions. When every task of a region reached EndOfData while other
// regions run on, its tasks wait for a checkpoint triggered after their
// EndOfData to commit and exit; waiting for the next periodic one could
// take a whole Interval (minutes, typically). So such a checkpoint is
// triggered promptly, but, unlike the job's final one, only once
// MinPauseBetween since the last completion allows: a job whose many
// regions end one after the other must not turn into a storm of
// checkpoints, and the min pause is the user's stated limit on that. It is
// an ordinary checkpoint of all running tasks; when it goes out at a time
// the periodic one is due, it counts as that one.
//
// Periodic rhythm. The next periodic checkpoint is due one Interval after
// the previous due time; if the trigger was so late (held back by
// MaxConcurrent or the min pause) that this time has passed too, one
// Interval after the trigger. Flink instead restarts its timer after a
// min-pause delay; both avoid bursts of catch-up checkpoints.
//
// Failover. Restoring aborts every pending checkpoint, also one whose
// metadata is being written (it is discarded once written), and holds
// triggers back, so that the latest completed checkpoint stays the one the
// restore picks; Flink's scheduler likewise stops the checkpoint scheduler
// and aborts pending checkpoints before it restores. TasksRestarted aborts
// every pending checkpoint without NotifyAborted (the task attempts are
// gone), resets the finished and end-of-data marks to the restored ones,
// restarts the periodic schedule from its Now, lifts the stop a completed
// stop-with-savepoint put on periodic checkpoints, and lets triggers go out
// again. Queued checkpoint requests survive both.
package checkpoint
