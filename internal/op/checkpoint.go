package op

import (
	"context"
	"io"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// Checkpointing, from an operator's side. At a checkpoint barrier the task
// calls SnapshotState on every operator of its chain that implements
// Snapshotter, on its own goroutine, before it forwards the barrier; the
// bytes returned are written to checkpoint storage asynchronously while the
// task goes on. When the checkpoint completed, NotifyCheckpointComplete
// reaches every CheckpointListener (two-phase-commit sinks commit there).
// On restore, the state an operator snapshotted (redistributed for the new
// parallelism) is in Context.Restored when Open is called.

// ListMode says how operator list state is redistributed on restore.
type ListMode uint8

const (
	// SplitList entries are dealt out over the new subtasks (Flink's
	// ListState): each entry goes to exactly one subtask.
	SplitList ListMode = iota
	// UnionList entries all go to every subtask (UnionListState).
	UnionList
	// BroadcastList: every subtask snapshotted the same entries; each new
	// subtask gets one copy (BroadcastState).
	BroadcastList
)

// NamedList is one named operator list state.
type NamedList struct {
	Name    string
	Mode    ListMode
	Entries [][]byte
}

// Snapshot is the state of one operator subtask at a checkpoint.
type Snapshot struct {
	// Keyed holds the keyed state, or nil.
	Keyed KeyedSnapshot
	// Lists holds operator list state.
	Lists []NamedList
}

// Restored is the state an operator subtask starts from.
type Restored struct {
	CheckpointID int64
	// KeyGroups holds the sections of the key groups this subtask owns.
	KeyGroups map[int][]byte
	// Native holds keyed state that a backend wrote in its own format (the
	// files of an incremental checkpoint) whose key groups overlap this
	// subtask's; the backend restores it before KeyGroups.
	Native []NativeKeyed
	// Lists holds the list state entries redistributed to this subtask.
	Lists []NamedList
}

// List returns the entries of the named list, or nil.
func (r *Restored) List(name string) [][]byte {
	if r == nil {
		return nil
	}
	for _, l := range r.Lists {
		if l.Name == name {
			return l.Entries
		}
	}
	return nil
}

// KeyedSnapshot is an operator's keyed state at a checkpoint, captured on
// the task's goroutine at the barrier and written later on another: the
// task goes on processing while its state is serialized and stored.
type KeyedSnapshot interface {
	// Write stores the state in dir, under names that start with name, and
	// returns its handle. The runtime calls it at most once, then Release.
	Write(ctx context.Context, dir *storage.CheckpointDir, name string) (storage.KeyedStateHandle, error)
	// Release frees what the capture holds; it is called whether or not
	// Write was.
	Release()
}

// NativeKeyed is keyed state of one old subtask in a backend's own format.
type NativeKeyed struct {
	// KeyGroupStart and KeyGroupEnd are the key groups the old subtask
	// owned.
	KeyGroupStart, KeyGroupEnd int
	// Files are the backend's files; SharedFile.Key is the backend's name.
	Files []storage.SharedFile
	// Open reads one of Files.
	Open func(ctx context.Context, f storage.SharedFile) (io.ReadCloser, error)
	// Reusable is set when the files belong to this job's own checkpoint
	// storage and are tracked by its shared-state registry, so an
	// incremental backend may reference them from later checkpoints
	// instead of uploading them again.
	Reusable bool
}

// Snapshotter is implemented by operators with state.
type Snapshotter interface {
	SnapshotState(checkpointID int64) (*Snapshot, error)
}

// CheckpointListener is implemented by operators that act on the outcome of
// checkpoints.
type CheckpointListener interface {
	NotifyCheckpointComplete(checkpointID int64) error
	NotifyCheckpointAborted(checkpointID int64) error
}
