// Package barrier decides how one task handles checkpoint barriers on its
// input channels: when a checkpoint is aligned, which channels to block, when
// to snapshot, which in-flight data becomes channel state, and when to give
// a checkpoint up. It is Flink's SingleCheckpointBarrierHandler with the
// FLIP-147 additions (checkpoints after tasks finished), written as a pure
// state machine in the manner of etcd's raft: no goroutines, no locks, no
// clock, no I/O. Time is an input.
//
// # What the package owns, and what it does not
//
// It owns the decision logic only. The task (package task) owns the gate,
// the operators, the channel-state writer and the timers, and performs the
// actions. The handler never sees data, only that a buffer was polled.
// EndOfData is not an input: a channel that delivered EndOfData stays open
// for barriers until EndOfPartition, and only EndOfPartition changes
// alignment. At-least-once barrier tracking (Flink's CheckpointBarrierTracker)
// is not provided.
//
// # Driving it
//
// The task's mailbox goroutine owns a Handler (New(numChannels, opts)) and
// feeds it what happens, each through a method or through Step:
//
//	item polled from channel ch     call
//	CheckpointBarrier b             OnBarrier(ch, b, overtook, now)
//	CancelCheckpointMarker{id}      OnCancelMarker(ch, id)
//	EndOfPartition                  OnEndOfPartition(ch)
//	data buffer                     OnBufferReceived(ch), optional (below)
//	RPC trigger of checkpoint b     OnTrigger(b, now)
//	timer from a ScheduleTick       OnTick(now)
//	snapshot taken                  OnSnapshotDone(id), optional
//
// After every call the task takes Ready() and performs every action, in the
// order given, before it polls the gate or feeds the handler again:
//
//   - BlockChannel{ch}: Gate.Block(ch). The barrier of the aligning checkpoint
//     came on ch; what follows it must wait for the snapshot.
//   - UnblockAll: Gate.Unblock every channel it blocked.
//   - TriggerSnapshot{ID, Timestamp, Unaligned, PersistChannels}: snapshot
//     the operator chain now, synchronously, before any further input is
//     processed, and send the barrier downstream; then acknowledge to the
//     coordinator once the asynchronous part and, for an unaligned snapshot,
//     the channel state of PersistChannels are complete. The handler relies
//     on this being synchronous: the UnblockAll that may follow in the same
//     batch must not let post-barrier data into the snapshot.
//   - StartPersisting{ID, Channels}: from now on, write every data buffer
//     polled on those channels into checkpoint ID's channel state, and
//     process it as usual (on restore it is replayed into the operators).
//   - PersistOvertaken{ID, ch}: add the buffers the barrier just polled
//     from ch overtook (and the unread rest of a buffer of ch in progress)
//     to ch's channel state for ID.
//   - StopPersisting{ID, ch}: ch's channel state for ID is complete.
//   - AbortCheckpoint{ID, Reason}: decline ID to the coordinator, tell the
//     operators, drop anything held for ID, including channel state being
//     persisted: no StopPersisting follows an abort.
//   - ScheduleTick{At}: arrange for OnTick(t) with some t >= At. Early, late,
//     repeated and stale ticks are harmless.
//   - ForwardCancel{ID}: send CancelCheckpointMarker{ID} on every output.
//
// A task that prefers not to track StartPersisting and StopPersisting may
// instead ask OnBufferReceived(ch) for each polled data buffer; it answers
// whether (and for which checkpoint) the buffer is channel state. Status
// returns a read-only view for tests and metrics. Channel indexes out of
// range panic: they are bugs in the caller.
//
// # The rules
//
// One checkpoint is pending at a time, as in Flink. It starts with its first
// barrier, or with an RPC trigger, and is settled when it was snapshotted and
// every channel is aligned, or when it is aborted. A channel is aligned for a
// checkpoint when it delivered the checkpoint's barrier or EndOfPartition.
// The first barrier (or the trigger) decides the checkpoint's mode; the
// other barriers of the same id are assumed to carry the same options.
//
// Ids. The handler remembers the newest id seen in any barrier, trigger or
// cancel marker. A barrier or trigger with a newer id aborts the pending
// checkpoint (ReasonSubsumed: a channel delivers ids in increasing order, so
// a channel that showed a newer id can never deliver the older barrier) and
// starts the newer one. Barriers, triggers and cancel markers with an id
// that is neither newer nor pending are ignored, like those on ended
// channels and duplicates. An id first seen after a newer one is thus
// ignored without a decline, as in Flink: the newer checkpoint subsumes it
// at the coordinator. Options.LastCheckpointID sets where ids start.
//
// Aligned. The channel of each barrier is blocked until the snapshot, except
// the barrier that completes the alignment: the snapshot comes before any
// further poll anyway, so blocking it would only be undone at once. When all
// channels are aligned: TriggerSnapshot, then UnblockAll if anything is
// blocked. UnblockAll is never emitted when nothing is blocked.
//
// EndOfPartition (FLIP-147). It aligns the channel for the pending checkpoint
// and every later one, and never aborts anything (Flink before FLIP-147
// aborted the pending checkpoint). If it was the last channel missing, the
// checkpoint completes at that moment. With every channel ended, only a
// trigger can start a checkpoint, and it completes at once.
//
// RPC trigger. A source task (no channels) snapshots at once. A non-source
// task is triggered only when every task upstream of it finished, so it
// waits, without blocking anything, until every channel delivered
// EndOfPartition; a barrier of the same id that an upstream emitted before
// finishing is the same checkpoint and aligns its channel (and blocks it,
// as any barrier of an aligning checkpoint). A trigger for the pending id
// changes nothing. Choice: an unaligned trigger does not wait; it snapshots
// at once and persists the open channels up to their EndOfPartition, which
// is what FLIP-147 says of unaligned checkpoints during the finishing phase
// ("the buffers before the EndOfPartition message will be snapshotted") and
// keeps unaligned checkpoints fast while upstream drains. An aligned trigger
// with AlignedTimeout counts its timeout from the trigger.
//
// Unaligned (CheckpointBarrier.Unaligned). The first barrier snapshots at
// once with PersistChannels = the open channels that have not delivered the
// barrier, followed by StartPersisting for them; nothing is blocked. Each of their
// barriers, or their EndOfPartition, stops the persisting of that channel.
// The checkpoint stays pending until then, so a newer barrier meanwhile
// aborts it (its channel state would never be complete). An unaligned
// barrier is a priority event (network.IsPriority): it overtakes the
// buffers queued in its input channel, and the task passes overtook = true
// when it did. Those buffers precede the barrier, so they are channel state
// too: the handler emits PersistOvertaken for the channel after the
// snapshot of the first barrier, or before the StopPersisting of a later
// one. The channel state of a channel is thus what was polled on it between
// the snapshot and its barrier, then what the barrier overtook.
//
// Aligned with timeout (AlignedTimeout() > 0, not Unaligned). The alignment
// starts as usual and asks for a tick at first barrier (or trigger) +
// timeout, measured by this task's clock, not from the barrier's Timestamp:
// the coordinator's clock is not this process's, and the timeout bounds how long
// this task blocks. The deadline is checked by OnTick and after every event
// that carries a time (OnBarrier, OnTrigger), once the event is applied: a
// barrier that completes the alignment wins over a deadline that passed
// unnoticed. At or past the deadline the checkpoint switches to unaligned:
// TriggerSnapshot (Unaligned) with the open channels that have no barrier
// yet, StartPersisting for them, UnblockAll. The data a blocked channel
// queued after its barrier follows the snapshot, so it is processed, not
// persisted. A barrier that arrives past the deadline is not blocked, since
// the switch follows at once.
//
// Cancel markers. A marker for the pending id aborts it (ReasonCanceled). A
// marker for an id newer than any seen aborts the pending checkpoint as
// subsumed, then aborts that id, whose later barriers are ignored. A marker
// for a settled or older id is ignored, including one for a checkpoint this
// task already snapshotted aligned: its barrier has gone downstream and the
// coordinator aborts it globally. Every abort, whatever its reason, is
// followed by one ForwardCancel of the same id, as Flink does: this task
// declines the checkpoint, so it cannot complete, and downstream tasks stop
// aligning it sooner. Each id is aborted, and so forwarded, at most once.
//
// OnSnapshotDone is accepted for symmetry with the task's lifecycle and is
// shown by Status, but changes no decision, because TriggerSnapshot is
// performed synchronously.
package barrier
