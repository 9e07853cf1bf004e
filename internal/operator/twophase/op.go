package twophase

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
)

// New returns the operator of one subtask of sink; lineageOf returns the
// lineage the job was given ("" for none: the job id then).
func New[T, C any](sink Sink[T, C], lineageOf func() string) *Op[T, C] {
	return &Op[T, C]{sink: sink, lineageOf: lineageOf}
}

// committablesState names the operator list state of pending committables;
// writerState the list state of StatefulWriter states, dealt out over
// the subtasks of a restored job as the committables are (a union list
// state would refuse every checkpoint taken after some sink subtasks
// finished, FLIP-147); lineageState the broadcast state of the lineage
// (Context.Lineage).
const (
	committablesState = "committables"
	writerState       = "sink-writer"
	lineageState      = "sink-lineage"
)

// pendingCommittable is a committable with the checkpoint it belongs to.
type pendingCommittable[C any] struct {
	CheckpointID int64
	Committable  C
}

// Op runs a Sink's writer and committer in one operator: the
// writer pre-commits in SnapshotState, and NotifyCheckpointComplete commits
// everything pre-committed up to that checkpoint. Committables wait in
// operator state, so a restored subtask commits what a failed attempt
// pre-committed for a completed checkpoint but may not have committed.
//
// Once the input ended (Finish) and a checkpoint taken after it completed
// with nothing left to commit, the subtask's output is complete: a
// CleaningWriter is told so, once.
type Op[T, C any] struct {
	sink   Sink[T, C]
	ctx    context.Context
	cancel context.CancelFunc
	// checkpointing is off: commit at the end of input instead.
	noCheckpoints bool
	writer        Writer[T, C]
	committer     Committer[C]
	codec         codec.Codec[pendingCommittable[C]]
	pending       []pendingCommittable[C]
	// finished is set by Finish; finalID is the first checkpoint taken
	// after it; ended once the writer was told all is committed.
	finished bool
	finalID  int64
	ended    bool
	// lineage is Context.Lineage, kept in every checkpoint; lineageOf
	// returns the lineage the job was given (weir's Options.Lineage).
	lineage   string
	lineageOf func() string
}

// Open creates the committer, commits the committables restored from a
// completed checkpoint, and then creates the writer.
func (k *Op[T, C]) Open(ctx *op.Context) error {
	k.ctx, k.cancel = context.WithCancel(context.Background())
	k.noCheckpoints = !ctx.Checkpointing
	c, err := codec.For[pendingCommittable[C]]()
	if err != nil {
		return err
	}
	k.codec = c
	info := Context{JobID: ctx.JobID, OperatorUID: ctx.UID, SubtaskIndex: ctx.SubtaskIndex, Parallelism: ctx.Parallelism,
		AttemptNumber: ctx.Attempt, Logger: ctx.Logger, Lineage: cmp.Or(k.lineageOf(), ctx.JobID)}
	if ctx.Restored != nil {
		info.RestoredFromID = ctx.Restored.CheckpointID
		info.RestoredWriterStates = ctx.Restored.List(writerState)
		info.Lineage = k.lineageOf()
		if l := ctx.Restored.List(lineageState); len(l) > 0 {
			info.Lineage = string(l[0])
		}
		for _, e := range ctx.Restored.List(committablesState) {
			pc, _, err := c.Decode(e)
			if err != nil {
				return fmt.Errorf("restore committable: %w", err)
			}
			k.pending = append(k.pending, pc)
		}
	}
	if k.committer, err = k.sink.CreateCommitter(k.ctx, info); err != nil {
		return fmt.Errorf("create committer: %w", err)
	}
	// Restored committables belong to checkpoints that completed: commit
	// them before anything new is written.
	if info.RestoredFromID > 0 {
		if err := k.commitUpTo(info.RestoredFromID); err != nil {
			return err
		}
	}
	if k.writer, err = k.sink.CreateWriter(k.ctx, info); err != nil {
		return fmt.Errorf("create writer: %w", err)
	}
	k.lineage = info.Lineage
	return nil
}

// ProcessElement writes v into the pending transaction.
func (k *Op[T, C]) ProcessElement(_ int64, v T) error { return k.writer.Write(k.ctx, v) }

// Finish flushes the writer. Without checkpoints there will be no final
// checkpoint, so the last data is pre-committed and committed here.
func (k *Op[T, C]) Finish() error {
	if err := k.writer.Flush(k.ctx, true); err != nil {
		return err
	}
	k.finished = true
	if !k.noCheckpoints {
		return nil
	}
	cs, err := k.writer.PrepareCommit(k.ctx, 0)
	if err != nil {
		return fmt.Errorf("pre-commit at end of input: %w", err)
	}
	if len(cs) > 0 {
		if err := k.committer.Commit(k.ctx, cs); err != nil {
			return fmt.Errorf("commit at end of input: %w", err)
		}
	}
	return k.endIfAllCommitted()
}

// SnapshotState pre-commits for checkpoint id and stores the pending
// committables, the writer's state and the lineage.
func (k *Op[T, C]) SnapshotState(id int64) (*op.Snapshot, error) {
	if err := k.writer.Flush(k.ctx, false); err != nil {
		return nil, fmt.Errorf("flush for checkpoint %d: %w", id, err)
	}
	cs, err := k.writer.PrepareCommit(k.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("pre-commit for checkpoint %d: %w", id, err)
	}
	for _, c := range cs {
		k.pending = append(k.pending, pendingCommittable[C]{CheckpointID: id, Committable: c})
	}
	if k.finished && k.finalID == 0 {
		k.finalID = id
	}
	entries := make([][]byte, len(k.pending))
	for i, pc := range k.pending {
		entries[i] = k.codec.Append(nil, pc)
	}
	snap := &op.Snapshot{Lists: []op.NamedList{{Name: committablesState, Mode: op.SplitList, Entries: entries}}}
	if w, ok := k.writer.(StatefulWriter); ok {
		st, err := w.SnapshotState(id)
		if err != nil {
			return nil, fmt.Errorf("writer state for checkpoint %d: %w", id, err)
		}
		snap.Lists = append(snap.Lists, op.NamedList{Name: writerState, Mode: op.SplitList, Entries: [][]byte{st}})
	}
	if k.lineage != "" {
		snap.Lists = append(snap.Lists, op.NamedList{Name: lineageState, Mode: op.BroadcastList, Entries: [][]byte{[]byte(k.lineage)}})
	}
	return snap, nil
}

// NotifyCheckpointComplete commits what was pre-committed up to id.
func (k *Op[T, C]) NotifyCheckpointComplete(id int64) error {
	if err := k.commitUpTo(id); err != nil {
		return err
	}
	if k.finalID > 0 && id >= k.finalID {
		return k.endIfAllCommitted()
	}
	return nil
}

// endIfAllCommitted tells a CleaningWriter, once, that the subtask's
// input ended and everything it pre-committed is committed.
func (k *Op[T, C]) endIfAllCommitted() error {
	if k.ended || !k.finished || len(k.pending) > 0 {
		return nil
	}
	k.ended = true
	if w, ok := k.writer.(CleaningWriter); ok {
		if err := w.AllCommitted(k.ctx); err != nil {
			return fmt.Errorf("clean up after the last commit: %w", err)
		}
	}
	return nil
}

// NotifyCheckpointAborted keeps the committables: a later completed
// checkpoint commits them.
func (k *Op[T, C]) NotifyCheckpointAborted(int64) error { return nil }

// commitUpTo commits the committables of checkpoints up to id; on failure
// they all stay pending.
func (k *Op[T, C]) commitUpTo(id int64) error {
	var due []C
	var rest []pendingCommittable[C] // a new slice: on failure pending stays whole
	for _, pc := range k.pending {
		if pc.CheckpointID <= id {
			due = append(due, pc.Committable)
		} else {
			rest = append(rest, pc)
		}
	}
	if len(due) == 0 {
		return nil
	}
	if err := k.committer.Commit(k.ctx, due); err != nil {
		return fmt.Errorf("commit checkpoint %d: %w", id, err)
	}
	k.pending = rest
	return nil
}

// Close closes the writer and the committer.
func (k *Op[T, C]) Close() error {
	var errs []error
	if k.writer != nil {
		errs = append(errs, k.writer.Close())
	}
	if k.committer != nil {
		errs = append(errs, k.committer.Close())
	}
	if k.cancel != nil {
		k.cancel()
	}
	return errors.Join(errs...)
}
